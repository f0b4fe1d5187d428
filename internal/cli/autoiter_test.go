package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestIterationsAutoFlags(t *testing.T) {
	for args, want := range map[string]string{
		"--precision 2%":                       "--precision and --max-iterations go with --iterations auto",
		"--iterations auto --precision 0":      `--precision "0": want a share of the mean such as 2%`,
		"--iterations auto --max-iterations 2": `--max-iterations "2": want a whole number of at least 3`,
		"--iterations many":                    `--iterations "many": want a whole number of at least 1, or auto`,
	} {
		var out, errb bytes.Buffer
		a := append([]string{"--config", "../../scenarios/plaintext.yml", "--scenario", "plaintext"}, strings.Fields(args)...)
		if code := Run(context.Background(), State{Args: a, Stdout: &out, Stderr: &errb}); code != ExitBadInput || !strings.Contains(errb.String(), want) {
			t.Errorf("%s: exit %d, %q, want %q", args, code, errb.String(), want)
		}
	}
}
