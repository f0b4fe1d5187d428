package dotnet

import (
	"slices"
	"strings"
	"testing"

	"github.com/crankshaft/crankshaft/internal/api"
)

func TestListParsing(t *testing.T) {
	sdks := versions("9.0.101 [/usr/share/dotnet/sdk]\n10.0.100-rc.1.25451.107 [/usr/share/dotnet/sdk]\n8.0.404 [/usr/share/dotnet/sdk]\n10.0.100 [/x]\n")
	if want := []string{"8.0.404", "9.0.101", "10.0.100-rc.1.25451.107", "10.0.100"}; !slices.Equal(sdks, want) {
		t.Errorf("sdks %v, want %v", sdks, want)
	}
	rs := runtimes("Microsoft.AspNetCore.App 8.0.11 [/usr/share/dotnet/shared/Microsoft.AspNetCore.App]\nMicrosoft.NETCore.App 9.0.0 [/a]\nMicrosoft.NETCore.App 8.0.11 [/b]\n")
	if got := rs["Microsoft.NETCore.App"]; !slices.Equal(got, []string{"8.0.11", "9.0.0"}) {
		t.Errorf("runtimes %v", rs)
	}
}

func TestPrepare(t *testing.T) {
	info := api.DotnetInfo{SDKs: []string{"8.0.404", "9.0.101"},
		Runtimes: map[string][]string{"Microsoft.NETCore.App": {"8.0.11", "9.0.0"}, "Microsoft.AspNetCore.App": {"8.0.11", "9.0.0"}}}
	p, err := Prepare("/opt/dotnet/dotnet", info, api.Dotnet{Project: "src/Benchmarks/Benchmarks.csproj"}, nil, "--urls http://*:5000", "amd64")
	if err != nil {
		t.Fatal(err)
	}
	want := Plan{SDK: "9.0.101",
		BuildCommand: "/opt/dotnet/dotnet publish src/Benchmarks/Benchmarks.csproj -c Release -o published --framework net9.0",
		Executable:   "/opt/dotnet/dotnet", Arguments: "published/Benchmarks.dll --urls http://*:5000"}
	if p != want {
		t.Errorf("plan\n%+v\nwant\n%+v", p, want)
	}
	p, err = Prepare("dotnet", info, api.Dotnet{Project: `src\App\App.csproj`, SdkVersion: "8.0", RuntimeVersion: "8.0.11",
		Framework: "net8.0", SelfContained: true}, []string{"-p:PublishAot=false"}, "x", "arm64")
	if err != nil {
		t.Fatal(err)
	}
	if p.SDK != "8.0.404" || p.Executable != "./published/App" || p.Arguments != "x" ||
		p.BuildCommand != "dotnet publish src/App/App.csproj -c Release -o published --framework net8.0 -p:RuntimeFrameworkVersion=8.0.11 -p:PublishAot=false --self-contained -r linux-arm64" {
		t.Errorf("self-contained plan %+v", p)
	}
	for _, c := range []struct {
		d    api.Dotnet
		info api.DotnetInfo
		want string
	}{
		{api.Dotnet{Project: "a.csproj"}, api.DotnetInfo{Missing: "dotnet is not on its PATH"}, "this agent lacks a .NET SDK to build a.csproj (dotnet is not on its PATH)"},
		{api.Dotnet{Project: "a.csproj", SdkVersion: "10.0.100"}, info, ".NET SDK 10.0.100 (it has 8.0.404, 9.0.101)"},
		{api.Dotnet{Project: "a.csproj", AspNetCoreVersion: "7.0.20"}, info, "Microsoft.AspNetCore.App 7.0.20 (it has 8.0.11, 9.0.0)"},
		{api.Dotnet{Project: "../a.csproj"}, info, "want a path inside the job's source"},
	} {
		if _, err := Prepare("dotnet", c.info, c.d, nil, "", "amd64"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.d, err, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	for _, c := range [][2]string{{"8.0.404", "10.0.100"}, {"10.0.100-rc.1", "10.0.100"}, {"9.0", "9.0.1"}} {
		if compare(c[0], c[1]) >= 0 || compare(c[1], c[0]) <= 0 {
			t.Errorf("%s should sort before %s", c[0], c[1])
		}
	}
}
