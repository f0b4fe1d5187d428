package config

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

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
