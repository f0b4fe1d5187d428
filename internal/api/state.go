package api

import "time"

// JobState is a job's place in its life on the agent, named as crank names them.
type JobState string

// The job states. Transitions are defined in one place, the agent's state machine.
const (
	StateNew          JobState = "New"
	StateInitializing JobState = "Initializing"
	StateWaiting      JobState = "Waiting"
	StateStarting     JobState = "Starting"
	StateRunning      JobState = "Running"
	StateStopping     JobState = "Stopping"
	StateStopped      JobState = "Stopped"
	StateFailed       JobState = "Failed"
	StateDeleted      JobState = "Deleted"
)

// Terminal reports whether no further transition but deletion can happen.
func (s JobState) Terminal() bool {
	return s == StateStopped || s == StateFailed || s == StateDeleted
}

// JobStatus is what the agent says about a job; reading it also renews the job's lease.
type JobStatus struct {
	ID    string   `json:"id"`
	State JobState `json:"state"`
	// Error says why a Failed job failed, quoting the last lines of its output where that helps.
	Error string `json:"error,omitempty"`
	// Skipped is set when the agent declined the job (required architecture or OS not met).
	Skipped string `json:"skipped,omitempty"`
	// ExitCode of the job's process once it has exited.
	ExitCode *int `json:"exitCode,omitempty"`
	// BuildTime and StartTime in milliseconds, once known.
	BuildTimeMs float64 `json:"buildTimeMs,omitempty"`
	StartTimeMs float64 `json:"startTimeMs,omitempty"`
	// BuildReused is true when a cached build with the same source hash served.
	BuildReused bool `json:"buildReused,omitempty"`
	// BuildLogBytes is how much of the job's output is its clone and build log (the rest is
	// the program's own output), once the source is ready.
	BuildLogBytes int64 `json:"buildLogBytes,omitempty"`
	// MeasuredStart is when a load job's measured run began (after its warm-up run).
	MeasuredStart *time.Time `json:"measuredStart,omitempty"`
	// MeasuredEnd is when that run's process exited: the load's own end, which the controller
	// sees only at its next status read.
	MeasuredEnd *time.Time `json:"measuredEnd,omitempty"`
	// Warnings say what the job asked for and does not get: a limit this machine cannot apply,
	// counters that cannot be read (and why). The controller prints them.
	Warnings []string `json:"warnings,omitempty"`
}

// Info describes an agent's machine.
type Info struct {
	OS            string  `json:"os"`
	Arch          string  `json:"arch"`
	Cores         int     `json:"cores"`
	CPUModel      string  `json:"cpuModel,omitempty"`
	MemoryMB      float64 `json:"memoryMB,omitempty"`
	Version       string  `json:"version"`
	Hardware      string  `json:"hardware,omitempty"`
	Hostname      string  `json:"hostname,omitempty"`
	GoVersion     string  `json:"goVersion,omitempty"`
	KernelRelease string  `json:"kernel,omitempty"`
	// Time is the agent's clock when it answered: the controller estimates each agent's clock
	// offset from it and puts every timeline on its own clock.
	Time time.Time `json:"time,omitzero"`
	// Containment says where jobs' control groups are made and which limits they take, or why
	// jobs only get process groups.
	Containment string `json:"containment,omitempty"`
	// Docker is the engine's version and API, or why Docker jobs cannot run here.
	Docker string `json:"docker,omitempty"`
	// Dotnet is the .NET SDKs and runtimes installed, or why there are none.
	Dotnet DotnetInfo `json:"dotnet,omitzero"`
	// Perf is "available" when perf is installed on the agent's machine (whether it may record is
	// checked when a job asks for collect), else why not.
	Perf string `json:"perf,omitempty"`
	// Missing is, of the load tools jobs name by a bare executable (CheckedPrograms), those this
	// agent cannot find, each with why: the controller refuses such a job before anything starts.
	Missing map[string]string `json:"missing,omitempty"`
	// StatusWait is true when a status read may wait for the job's next state change
	// (Client.StatusChange): an older agent answers at once, and is polled.
	StatusWait bool `json:"statusWait,omitempty"`
	// SourceReuse is true when the agent may take a job's source from its build cache instead of
	// an upload (Client.ReuseSource).
	SourceReuse bool `json:"sourceReuse,omitempty"`
}

// MaxStatusWait bounds how long a status read waits for the job's next state change.
const MaxStatusWait = 5 * time.Second

// CheckedPrograms are the programs an agent reports in Info.Missing when it cannot find them.
var CheckedPrograms = []string{"wrk", "bombardier", "h2load", "ghz"}

// Profile is one profile an agent recorded over a job's measured window (a perf-cpu, go-cpu,
// go-mutex or go-block profile in the pprof format), or why it has none.
type Profile struct {
	Name  string `json:"name"`
	Bytes int    `json:"bytes,omitempty"`
	Error string `json:"error,omitempty"`
}

// Created is the answer to a job submission.
type Created struct {
	ID string `json:"id"`
}

// ErrorBody is the JSON body of every non-2xx answer.
type ErrorBody struct {
	Error string `json:"error"`
}
