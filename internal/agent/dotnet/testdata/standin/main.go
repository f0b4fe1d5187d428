// Command dotnet is a stand-in for the .NET CLI, for tests on machines without a .NET SDK. It
// accepts exactly the command lines of the real CLI that the agent uses, as the .NET CLI documents
// them, and refuses any other:
//
//	dotnet --list-sdks | --list-runtimes | --version
//	dotnet publish PROJECT [-c|--configuration C] [-o|--output DIR] [-f|--framework TFM]
//	       [--self-contained [true|false]] [-r|--runtime RID] [--disable-build-servers]
//	       [-p:NAME=VALUE | /p:NAME=VALUE | --property:NAME=VALUE]...
//	dotnet PATH.dll [ARGS...]
//
// The SDKs and runtimes it lists come from STANDIN_DOTNET_SDKS ("8.0.404,9.0.101") and
// STANDIN_DOTNET_RUNTIMES ("Microsoft.NETCore.App 8.0.11,Microsoft.AspNetCore.App 8.0.11").
// publish "compiles" the project's folder with `go build` (the test projects hold Go code beside
// their .csproj) into DIR/NAME, the apphost, and writes DIR/NAME.dll and NAME.runtimeconfig.json;
// `dotnet NAME.dll` runs that apphost.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "Usage: dotnet [options] [path-to-application]")
		return 1
	}
	root, _ := filepath.Abs(filepath.Dir(os.Args[0]))
	switch a := args[0]; {
	case a == "--list-sdks" && len(args) == 1:
		for _, v := range list("STANDIN_DOTNET_SDKS", "8.0.404,9.0.101") {
			fmt.Printf("%s [%s]\n", v, filepath.Join(root, "sdk"))
		}
	case a == "--list-runtimes" && len(args) == 1:
		for _, r := range list("STANDIN_DOTNET_RUNTIMES", "Microsoft.AspNetCore.App 8.0.11,Microsoft.NETCore.App 8.0.11,Microsoft.AspNetCore.App 9.0.0,Microsoft.NETCore.App 9.0.0") {
			name, _, _ := strings.Cut(r, " ")
			fmt.Printf("%s [%s]\n", r, filepath.Join(root, "shared", name))
		}
	case a == "--version" && len(args) == 1:
		sdks := list("STANDIN_DOTNET_SDKS", "8.0.404,9.0.101")
		fmt.Println(sdks[len(sdks)-1])
	case a == "publish":
		return publish(args[1:])
	case strings.HasSuffix(a, ".dll"):
		apphost := strings.TrimSuffix(a, ".dll")
		if _, err := os.Stat(a); err != nil {
			fmt.Fprintf(os.Stderr, "The application to execute does not exist: '%s'.\n", a)
			return 1
		}
		if err := syscall.Exec(apphost, append([]string{apphost}, args[1:]...), os.Environ()); err != nil {
			fmt.Fprintf(os.Stderr, "dotnet: %v\n", err)
			return 1
		}
	default:
		fmt.Fprintf(os.Stderr, "Could not execute because the specified command or file was not found: %q\n", a)
		return 1
	}
	return 0
}

func list(env, def string) []string {
	v := os.Getenv(env)
	if v == "" {
		v = def
	}
	return strings.Split(v, ",")
}

// publish reads publish's documented options, refusing any other, and builds the project.
func publish(args []string) int {
	var project, out, framework, rid string
	selfContained := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		value := func() (string, bool) {
			if i+1 >= len(args) {
				return "", false
			}
			i++
			return args[i], true
		}
		var ok = true
		switch {
		case a == "-c" || a == "--configuration":
			_, ok = value()
		case a == "-o" || a == "--output":
			out, ok = value()
		case a == "-f" || a == "--framework":
			framework, ok = value()
		case a == "-r" || a == "--runtime":
			rid, ok = value()
		case a == "--self-contained":
			selfContained = true
			if i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false") {
				i++
				selfContained = args[i] == "true"
			}
		case a == "--disable-build-servers" || a == "--no-restore":
		case strings.HasPrefix(a, "-p:") || strings.HasPrefix(a, "/p:") || strings.HasPrefix(a, "--property:"):
			if !strings.Contains(a, "=") {
				ok = false
			}
		case !strings.HasPrefix(a, "-") && project == "":
			project = a
		default:
			fmt.Fprintf(os.Stderr, "error: Unrecognized command or argument '%s'\n", a)
			return 1
		}
		if !ok {
			fmt.Fprintf(os.Stderr, "error: option %s needs a value\n", a)
			return 1
		}
	}
	if selfContained && rid == "" {
		fmt.Fprintln(os.Stderr, "error NETSDK1031: It is not supported to build or publish a self-contained application without specifying a RuntimeIdentifier.")
		return 1
	}
	if !strings.HasSuffix(project, ".csproj") {
		fmt.Fprintf(os.Stderr, "MSBUILD : error MSB1009: Project file does not exist.\nSwitch: %s\n", project)
		return 1
	}
	if _, err := os.Stat(project); err != nil {
		fmt.Fprintf(os.Stderr, "MSBUILD : error MSB1009: Project file does not exist.\nSwitch: %s\n", project)
		return 1
	}
	name := strings.TrimSuffix(filepath.Base(project), ".csproj")
	if out == "" {
		out = filepath.Join(filepath.Dir(project), "bin", "Release", framework, rid, "publish")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	absOut, _ := filepath.Abs(out)
	build := exec.Command("go", "build", "-o", filepath.Join(absOut, name), ".")
	build.Dir, build.Stdout, build.Stderr = filepath.Dir(project), os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s : error : build failed: %v\n", project, err)
		return 1
	}
	config := fmt.Sprintf(`{"runtimeOptions":{"tfm":%q,"framework":{"name":"Microsoft.NETCore.App"}}}`, framework)
	for file, body := range map[string]string{name + ".dll": "stand-in assembly of " + project + "\n", name + ".runtimeconfig.json": config + "\n"} {
		if err := os.WriteFile(filepath.Join(absOut, file), []byte(body), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	fmt.Printf("  %s -> %s/\n", name, absOut)
	return 0
}
