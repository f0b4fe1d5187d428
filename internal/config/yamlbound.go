package config

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// maxConfigLoads bounds the files one Load reads, imports of imports included: a few files that
// each import the next ten times would otherwise be read billions of times.
const maxConfigLoads = 1000

// countLoad counts one more file read, refusing beyond maxConfigLoads.
func (l *loader) countLoad(loc string) error {
	if l.loads++; l.loads > maxConfigLoads {
		return fmt.Errorf("%s: more than %d files read for one configuration (imports of imports): "+
			"is a file imported many times?", loc, maxConfigLoads)
	}
	return nil
}

// maxYAMLNodes bounds the values a file holds once its aliases (*name) are expanded: a few
// hundred bytes of nested aliases would otherwise expand to gigabytes (a "billion laughs" file).
// crank's and aspnet/Benchmarks' largest files hold a few thousand.
const maxYAMLNodes = 100_000

// checkExpansion counts the nodes of doc after alias expansion, without expanding anything (each
// anchored node is counted once and its count reused), and refuses a file beyond maxYAMLNodes.
func checkExpansion(doc *yaml.Node, name string) error {
	memo := map[*yaml.Node]int{}
	var count func(n *yaml.Node, depth int) int
	count = func(n *yaml.Node, depth int) int {
		if n == nil || depth > maxYAMLDepth {
			return 1 // convert reports the depth
		}
		if c, ok := memo[n]; ok {
			return c
		}
		memo[n] = maxYAMLNodes + 1 // a node that contains itself counts as too many
		total := 1
		if n.Kind == yaml.AliasNode {
			total = count(n.Alias, depth+1)
		}
		for _, c := range n.Content {
			total = min(total+count(c, depth+1), maxYAMLNodes+1)
		}
		memo[n] = total
		return total
	}
	if count(doc, 0) > maxYAMLNodes {
		return fmt.Errorf("%s: more than %d values once its aliases (*name) are expanded: "+
			"refusing a file that would exhaust memory", name, maxYAMLNodes)
	}
	return nil
}
