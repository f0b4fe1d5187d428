package influx

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestPushHelpHidesTheToken(t *testing.T) {
	env := map[string]string{"CRANK_INFLUX_TOKEN": "s3cret-token"}
	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--help"}, func(k string) string { return env[k] }, &out, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	help := out.String() + errb.String()
	if strings.Contains(help, "s3cret-token") || !strings.Contains(help, "influx-token") {
		t.Errorf("help shows the token or lacks the flag:\n%s", help)
	}
}
