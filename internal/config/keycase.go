package config

// crank reads its files into typed C# objects, whose keys match ignoring case: a job's
// `Variables:` or a scenario's `Job:` are crank's `variables` and `job`. canonicalKeys spells
// those keys as this package reads them, in each file before it is merged, so that the rest of
// the package (merging, profiles, variables, the decoder) sees one spelling. Names that are data
// (variable, job, scenario, service and profile names) keep their case.

var (
	rootKeys    = append([]string{keyImports, keyVariables, keyJobs, keyScenarios, keyProfiles, "counters", "commands"}, scriptRootKeys...)
	profileKeys = []string{keyVariables, keyJobs, "agents"}
	entryKeys   = append([]string{"aliases", keyThresholds}, jobKeys...)
)

// canonicalKeys renames, in place, the keys of one parsed file.
func canonicalKeys(root *node) {
	foldKeys(root, rootKeys)
	for _, j := range root.get(keyJobs).pairsOrNil() {
		jobKeysCase(j.value)
	}
	for _, s := range root.get(keyScenarios).pairsOrNil() {
		for _, svc := range s.value.pairsOrNil() {
			if !isScenarioSection(svc.key) {
				jobKeysCase(svc.value)
			}
		}
	}
	for _, p := range root.get(keyProfiles).pairsOrNil() {
		foldKeys(p.value, profileKeys)
		for _, group := range []string{keyJobs, "agents"} {
			for _, e := range p.value.get(group).pairsOrNil() {
				jobKeysCase(e.value)
			}
		}
	}
}

// jobKeysCase spells a job's (or a service's, or a profile entry's) keys, and those of its
// source: and options:.
func jobKeysCase(n *node) {
	foldKeys(n, entryKeys)
	foldKeys(n.get("source"), sourceKeys)
	foldKeys(n.get("options"), optionsKeys)
}

// foldKeys renames the keys of the map n that match one of known ignoring case to known's
// spelling. When the map already holds that spelling, the two values are merged in file order
// (the later one wins), as crank's deserializer lets the later key win.
func foldKeys(n *node, known []string) {
	if !n.isMap() {
		return
	}
	out := n.pairs[:0:0]
	for _, p := range n.pairs {
		if c := canonical(p.key, known); c != "" {
			p.key = c
		}
		if i := indexOfKey(out, p.key); i >= 0 {
			out[i].value = merge(out[i].value, p.value)
			out[i].keyPos = p.keyPos
			continue
		}
		out = append(out, p)
	}
	n.pairs = out
}

func indexOfKey(pairs []pair, key string) int {
	for i := range pairs {
		if pairs[i].key == key {
			return i
		}
	}
	return -1
}
