// Package docker holds the lab's docker-compose.yml and Dockerfiles. Its test checks them
// without a Docker engine: the compose file against the Compose Specification's JSON schema,
// and every bind-mounted path and build context or Dockerfile against the tree.
package docker

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	composeschema "github.com/compose-spec/compose-go/v2/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	// The Compose specification's schema, as compose-go (the reference Go implementation) embeds it.
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(composeschema.Schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("compose-spec.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("compose-spec.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// loadCompose reads a compose file as the JSON value the schema validates.
func loadCompose(t *testing.T, text []byte) (any, map[string]any) {
	t.Helper()
	var y map[string]any
	if err := yaml.Unmarshal(text, &y); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(y)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v, y
}

func TestComposeFileFollowsTheSpec(t *testing.T) {
	sch := compileSchema(t)
	text, err := os.ReadFile("docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	v, y := loadCompose(t, text)
	if err := sch.Validate(v); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	services, _ := y["services"].(map[string]any)
	var names []string
	for name := range services {
		names = append(names, name)
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "crank-agent,grafana,influxdb" {
		t.Errorf("services %v", names)
	}
	if img := services["influxdb"].(map[string]any)["image"]; img != "influxdb:1.8" {
		t.Errorf("influxdb image %v", img)
	}
}

func TestComposeSchemaRejectsMistakes(t *testing.T) {
	sch := compileSchema(t)
	for _, bad := range []string{
		"services:\n  a:\n    image: x\n    volumez: [a]\n",
		"services:\n  a:\n    ports: \"8080:80\"\n",
		"servicez: {}\n",
	} {
		v, _ := loadCompose(t, []byte(bad))
		if err := sch.Validate(v); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestComposePathsExist: every bind mount source, build context and Dockerfile is in the tree.
func TestComposePathsExist(t *testing.T) {
	text, err := os.ReadFile("docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, y := loadCompose(t, text)
	checked := 0
	exists := func(what, path string) {
		checked++
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", what, err)
		}
	}
	for name, s := range y["services"].(map[string]any) {
		svc := s.(map[string]any)
		for _, src := range bindSources(svc["volumes"]) {
			exists(name+": bind mount "+src, src)
		}
		switch b := svc["build"].(type) {
		case string:
			exists(name+": build context", b)
			exists(name+": Dockerfile", filepath.Join(b, "Dockerfile"))
		case map[string]any:
			ctx, _ := b["context"].(string)
			df, _ := b["dockerfile"].(string)
			exists(name+": build context", ctx)
			exists(name+": Dockerfile", filepath.Join(ctx, cmpOr(df, "Dockerfile")))
		}
	}
	if checked != 5 { // grafana's 3 bind mounts, the agent's build context and Dockerfile
		t.Errorf("checked %d paths, want 5", checked)
	}
}

// bindSources returns the host paths of a service's bind mounts (short or long syntax).
func bindSources(volumes any) []string {
	list, _ := volumes.([]any)
	var out []string
	for _, v := range list {
		switch m := v.(type) {
		case string:
			src, _, _ := strings.Cut(m, ":")
			if strings.HasPrefix(src, ".") || strings.HasPrefix(src, "/") {
				out = append(out, src)
			}
		case map[string]any:
			if m["type"] == "bind" {
				src, _ := m["source"].(string)
				out = append(out, src)
			}
		}
	}
	return out
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
