package controller

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSpan reads --span: crank's HH:mm:ss (also d.HH:mm:ss) or a Go duration ("90s", "1h30m").
func ParseSpan(v string) (time.Duration, error) {
	if d, err := time.ParseDuration(v); err == nil {
		if d <= 0 {
			return 0, fmt.Errorf("want a positive duration")
		}
		return d, nil
	}
	days := 0
	rest := v
	if d, r, ok := strings.Cut(v, "."); ok && !strings.Contains(d, ":") {
		n, err := strconv.Atoi(d)
		if err != nil {
			return 0, fmt.Errorf("want HH:mm:ss or a duration such as 90s")
		}
		days, rest = n, r
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 3 {
		return 0, fmt.Errorf("want HH:mm:ss or a duration such as 90s")
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil || x < 0 || (i > 0 && x > 59) {
			return 0, fmt.Errorf("want HH:mm:ss or a duration such as 90s")
		}
		n[i] = x
	}
	d := time.Duration(days)*24*time.Hour + time.Duration(n[0])*time.Hour + time.Duration(n[1])*time.Minute + time.Duration(n[2])*time.Second
	if d <= 0 {
		return 0, fmt.Errorf("want a positive duration")
	}
	return d, nil
}
