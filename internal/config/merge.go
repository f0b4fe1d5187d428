package config

// merge lays src over dst, as crank merges configuration: maps merge key by key, recursively;
// scalars and lists in src replace what dst had. A null in src leaves dst as it was (so an empty
// `variables:` does not wipe the job's variables). dst is changed in place and returned; src is
// copied, never shared.
func merge(dst, src *node) *node {
	if src.isNull() {
		return dst
	}
	if dst == nil || !dst.isMap() || !src.isMap() {
		return src.clone()
	}
	return mergePairs(dst, src, (*node).pair, merge)
}

// mergePairs lays the keys of the map src over the map dst: a key dst has (found by find) gets
// combine(its value, src's); a new non-null key is added, copied. dst is changed and returned.
func mergePairs(dst, src *node, find func(*node, string) *pair, combine func(dst, src *node) *node) *node {
	for _, p := range src.pairs {
		if cur := find(dst, p.key); cur != nil {
			cur.value = combine(cur.value, p.value)
			if !p.value.isNull() {
				cur.keyPos = p.keyPos
			}
			continue
		}
		if p.value.isNull() {
			continue
		}
		dst.pairs = append(dst.pairs, pair{key: p.key, keyPos: p.keyPos, value: p.value.clone()})
	}
	return dst
}

// mergeFile merges one configuration file over others: as merge, except that crank's root
// script lists (onResultsCreating, defaultScripts, onResultsCreated, results) are appended, so
// every file's scripts run, as in crank.
func mergeFile(dst, src *node) *node {
	if !dst.isMap() || !src.isMap() {
		return merge(dst, src)
	}
	var appended []string
	for _, key := range []string{"onResultsCreating", "defaultScripts", "onResultsCreated", "results"} {
		d, s := dst.pair(key), src.pair(key)
		if d == nil || s == nil || !d.value.isList() || !s.value.isList() {
			continue
		}
		list := d.value.clone()
		for _, it := range s.value.items {
			list.items = append(list.items, it.clone())
		}
		d.value = list
		appended = append(appended, key)
	}
	return merge(dst, src.without(appended...))
}
