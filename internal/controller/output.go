package controller

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/crankshaft/crankshaft/internal/api"
	"github.com/crankshaft/crankshaft/internal/safewrite"
)

// CommandLine is the program and arguments a job runs, as the agent will split them.
func CommandLine(j api.Job) string {
	return strings.TrimSpace(j.Executable + " " + j.Arguments)
}

// building tells whether the job is still getting its source or building.
func building(s api.JobState) bool {
	return s == api.StateNew || s == api.StateInitializing || s == api.StateWaiting
}

// maxLine is the longest piece of a line follow waits to see the end of.
const maxLine = 1 << 20

// follow prints the new complete lines of output of the jobs whose options.displayOutput or
// options.displayBuild is set, each line prefixed with the service's name.
func (c *Controller) follow(ctx context.Context, targets, others []*instance) {
	for _, in := range append(append([]*instance{}, others...), targets...) {
		o := in.job.Options
		if (!o.DisplayOutput && !o.DisplayBuild) || in.id == "" || in.status.Skipped != "" || in.silent {
			continue // a silent agent is left to pollWait, which bounds how long it may be
		}
		if building(in.status.State) && !o.DisplayBuild {
			continue
		}
		octx, cancel := context.WithTimeout(ctx, c.readTimeout(in))
		text, err := in.client.Output(octx, in.id, in.shown)
		cancel()
		if err != nil {
			c.log.Debug("reading output", "service", in.service, "agent", in.url, "err", err)
			continue
		}
		end := strings.LastIndexByte(text, '\n')
		if end < 0 && len(text) >= maxLine { // a line that long is shown in pieces
			end = len(text) - 1
		}
		if end < 0 {
			continue
		}
		from := in.shown
		in.shown += int64(end + 1)
		buildEnd := in.status.BuildLogBytes
		if building(in.status.State) {
			buildEnd = in.shown
		}
		pos := from
		for _, line := range strings.SplitAfter(text[:end+1], "\n") {
			isBuild := pos < buildEnd
			pos += int64(len(line))
			if line == "" || (isBuild && !o.DisplayBuild) || (!isBuild && !o.DisplayOutput) {
				continue
			}
			serviceLine(c.opts.JobOutput, in.service, strings.TrimRight(line, "\r\n"))
		}
	}
}

// iterationKey carries "iteration i of n" from Execute to the files saveOutputs names.
type iterationKey struct{}

func withIteration(ctx context.Context, i, n int) context.Context {
	if n <= 1 {
		return ctx
	}
	return context.WithValue(ctx, iterationKey{}, i)
}

// saveOutputs writes each job's build log and output into Options.OutputDir as
// SERVICE[-N][.iteration-I].build.log and .output.log (N: the endpoint's rank, from 2; I: the
// iteration, when there are several), before the jobs are deleted.
func (c *Controller) saveOutputs(ctx context.Context, ins []*instance) {
	if c.opts.OutputDir == "" {
		return
	}
	iteration := ""
	if i, ok := ctx.Value(iterationKey{}).(int); ok {
		iteration = fmt.Sprintf(".iteration-%d", i)
	}
	rank := map[string]int{}
	for _, in := range ins {
		rank[in.service]++
		if in.id == "" || in.status.Skipped != "" {
			continue
		}
		name := in.service
		if rank[in.service] > 1 {
			name = fmt.Sprintf("%s-%d", in.service, rank[in.service])
		}
		if err := c.saveOutput(ctx, in, c.opts.OutputDir, fileName(name+iteration)); err != nil {
			c.log.Warn("saving the job's output", "service", in.service, "agent", in.url, "err", err)
		}
	}
}

// Bounds on a job's output saved in Options.OutputDir: what an agent sends beyond them is not kept
// (a job that prints forever, or an agent that says it did).
const (
	MaxSavedOutput    = 64 << 20
	maxOutputReads    = 1024
	outputReadTimeout = time.Minute
)

// fileName is a service's name as one file name in Options.OutputDir: its slashes (and
// backslashes, NULs) as underscores. A service may be named "../../x" by a configuration (one
// fetched from a URL too), and its logs were written outside --output-dir (issue 41's fifth audit).
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, name)
}

// saveOutput writes a job's build log and output to dir/name.build.log and dir/name.output.log
// (name one file name: fileName), one bounded read after another, up to MaxSavedOutput bytes,
// maxOutputReads reads and outputReadTimeout; past a bound, the error names it.
func (c *Controller) saveOutput(ctx context.Context, in *instance, dir, name string) error {
	ctx, cancel := context.WithTimeout(ctx, outputReadTimeout)
	defer cancel()
	build, err := safewrite.Create(filepath.Join(dir, name+".build.log"), safewrite.Output)
	if err != nil {
		return err
	}
	defer build.Close()
	output, err := safewrite.Create(filepath.Join(dir, name+".output.log"), safewrite.Output)
	if err != nil {
		return err
	}
	defer output.Close()
	split := max(in.status.BuildLogBytes, 0)
	if building(in.status.State) {
		split = MaxSavedOutput
	}
	var off int64
	for range maxOutputReads {
		text, err := in.client.Output(ctx, in.id, off)
		if err != nil || text == "" {
			return err
		}
		full := off+int64(len(text)) > MaxSavedOutput
		if full {
			text = text[:MaxSavedOutput-off]
		}
		cut := min(max(split-off, 0), int64(len(text)))
		if _, err := build.WriteString(text[:cut]); err != nil {
			return err
		}
		if _, err := output.WriteString(text[cut:]); err != nil {
			return err
		}
		off += int64(len(text))
		if full {
			return fmt.Errorf("agent %s: job %s: output longer than %d bytes: the rest is not saved", in.url, in.id, MaxSavedOutput)
		}
	}
	return fmt.Errorf("agent %s: job %s: output not over after %d reads: the rest is not saved", in.url, in.id, maxOutputReads)
}
