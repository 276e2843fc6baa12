package emit

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
	"github.com/rebasegen/rebasegen/generator/synth"
)

// The ytt program of a rule that a plain copy cannot express: kapp runs it with the working copy
// as the document and data.values.new / data.values.existing as the two sources. It selects
// list items by their merge keys, never by position (a key field the item leaves out is the
// schema's default, e.g. protocol TCP, so it does not prevent a match), and takes each path from
// the first source that has it, like kapp's copy. "empty" paths get an empty map when the working
// copy lacks one the live object has: narrower than copying the live map's contents. The paths
// are data (base64 JSON), so nothing taken from the inputs is ever evaluated as code. The data
// holds one entry per rule of Rule.Parts(), each with its own sources, run in order: one
// evaluation for every rule naming the same resources.
//
// kapp compiles the program again for every resource the rule matches, under each base, on every
// deploy, and converts each source it reads into plain values: so a rule's program holds only the
// functions and steps the rule uses, and converts only the sources it reads. Measured with kapp's
// yttresmod on the quantities fixture's Deployment, a rewrite rule: ytt's own floor (an overlay
// returning the document unchanged) is 22,000 allocations (1.9 MB) per evaluation; with the whole
// program it was 42,000 (4.0 MB), of which compiling the program took 11,000 and converting both
// sources through YAML 7,000; with the parts it uses, one source, through JSON: 34,000 (2.9 MB).
//
// It is written densely (a one-line suite after "if"/"for"/"def" where it fits, ";" between
// statements, no blank lines) because ytt's cost grows with the program's lines: measured with
// BenchmarkYTTRules (kapp's yttresmod, the fixtures' 6 ytt evaluations), 100 more "#@ x = 1" lines
// cost 0.49 MB per evaluation, the same 100 statements on one line 0.18 MB; the program with one
// statement per line allocated 2.06 MB and 23,600 allocations per evaluation, written densely
// 1.83 MB and 20,800, and without put where every rewrite ends in a field 1.71 MB and 19,800
// (ytt's floor, an overlay returning the document: 1.09 MB and 12,700).
const (
	yttHead = `#@ load("@ytt:data", "data"); load("@ytt:overlay", "overlay"); load("@ytt:json", "json"); load("@ytt:base64", "base64")
#@ rules = json.decode(base64.decode("RULES"))
#@ def plain(v): return json.decode(json.encode(v))
#@ def matches(item, s): return item == s["v"] if "v" in s else type(item) == "dict" and [k for k in s["k"] if k in item] != [] and [k for k in s["k"] if k in item and item[k] != s["k"][k]] == []
`
	yttLookup = `#@ def step(node, s):
#@   if "f" in s: return node[s["f"]] if type(node) == "dict" and s["f"] in node else None
#@   if type(node) != "list": return None
#@   if "i" in s: return node[int(s["i"])] if int(s["i"]) < len(node) else None
#@   found = [item for item in node if matches(item, s)]; return found[0] if found else None
#@ end
#@ def lookup(node, steps):
#@   for s in steps: node = step(node, s) if node != None else None
#@   return node
#@ end
`
	yttPresent = `#@ def present(src, steps):
#@   parent = lookup(src, steps[:-1]); return type(parent) == "dict" and steps[-1].get("f") in parent
#@ end
`
	yttPosition = `#@ def position(src, steps):
#@   parent = lookup(src, steps[:-1]); found = [i for i in range(len(parent)) if matches(parent[i], steps[-1])] if type(parent) == "list" else []
#@   return found[0] if found else -1
#@ end
`
	// same: the live item l is the working item w with, besides, only values at the paths (from
	// the item, each list step {"a": 1} every item of a nested list, by position there) that w
	// lacks: what a rule copying those paths from l makes of w. fill copies the paths into each
	// item of w's lists from the first live item that is the same, wherever it stands: a copy
	// following the item, not its index (synth.Rule.Items).
	yttItems = `#@ def same(w, l, paths):
#@   if type(w) != type(l): return False
#@   if type(w) == "list": return len(w) == len(l) and [i for i in range(len(w)) if not same(w[i], l[i], [p[1:] for p in paths if p and "a" in p[0]])] == []
#@   if type(w) != "dict": return w == l
#@   for k in [k for k in l if k not in w] + list(w.keys()):
#@     sub = [p[1:] for p in paths if p and p[0].get("f") == k]
#@     if k not in w and [] in sub: continue
#@     if k not in w or k not in l or not same(w[k], l[k], [p for p in sub if p]): return False
#@   end
#@   return True
#@ end
#@ def fill(w, l, paths):
#@   if type(w) == "list" and type(l) == "list":
#@     sub = [p[1:] for p in paths if p and "a" in p[0]]
#@     for x in w:
#@       found = [y for y in l if same(x, y, sub)]
#@       if found: fill(x, found[0], sub)
#@     end
#@   end
#@   if type(w) != "dict" or type(l) != "dict": return
#@   for k in {p[0]["f"]: 1 for p in paths if p and "f" in p[0]}:
#@     sub = [p[1:] for p in paths if p[0].get("f") == k]
#@     if k in l and k not in w and [] in sub: w[k] = plain(l[k])
#@     if k in l and k in w: fill(w[k], l[k], [p for p in sub if p])
#@   end
#@ end
`
	yttFold = `#@ def fold(obj, existing):
#@   sd = obj.get("stringData"); data = existing.get("data")
#@   if type(sd) != "dict" or type(data) != "dict": return
#@   for k in [k for k in sorted(sd.keys()) if k in data and data[k] == base64.encode(sd[k])]:
#@     if type(obj.get("data")) != "dict": obj["data"] = {}
#@     obj["data"][k] = data[k]; sd.pop(k)
#@   end
#@   if len(sd) == 0: obj.pop("stringData")
#@ end
`
	yttPut = `#@ def put(node, steps, v, pos):
#@   for s in steps[:-1]:
#@     nxt = step(node, s)
#@     if nxt == None and "f" in s and type(node) == "dict": node[s["f"]] = {}; nxt = node[s["f"]]
#@     if nxt == None: return
#@     node = nxt
#@   end
#@   last = steps[-1]
#@   if "f" in last and type(node) == "dict" and v == None: node.pop(last["f"], None)
#@   if "f" in last and type(node) == "dict" and v != None: node[last["f"]] = v
#@   if "f" in last or type(node) != "list": return
#@   found = [i for i in range(len(node)) if matches(node[i], last)]
#@   if found: node[found[0]] = v; return
#@   if pos >= 0 and pos <= len(node): node.insert(pos, v); return
#@   node.append(v)
#@ end
`
	yttRebase = `#@ def rebase(left):
#@   obj = plain(left); sources = {SOURCES}
#@   for rule in rules:
`
	yttPaths = `#@     for steps in rule["paths"]:
#@       found = [name for name in rule["sources"] if lookup(sources[name], steps) != None]
#@       if found: put(obj, steps, lookup(sources[found[0]], steps), position(sources[found[0]], steps))
#@     end
`
	yttItemsStep = `#@     if "items" in rule: fill(obj, sources["existing"], rule["items"])
`
	yttEmpty = `#@     for steps in rule["empty"]:
#@       if lookup(obj, steps) == None and lookup(sources["existing"], steps) != None: put(obj, steps, {}, -1)
#@     end
`
	yttNulls = `#@     for steps in rule["nulls"]:
#@       parent = lookup(obj, steps[:-1])
#@       if type(parent) == "dict" and not present(obj, steps) and present(sources["existing"], steps) and lookup(sources["existing"], steps) == None: parent[steps[-1]["f"]] = None
#@     end
`
	yttRewrites = `#@     for r in rule["rewrites"]:
#@       if lookup(obj, r["path"]) != r["from"] or r["from"] == None and not present(obj, r["path"]) or lookup(sources["existing"], r["path"]) != r["to"]: continue
#@       if r["to"] == None and present(sources["existing"], r["path"]): lookup(obj, r["path"][:-1])[r["path"][-1]["f"]] = None
#@       if r["to"] != None or not present(sources["existing"], r["path"]): put(obj, r["path"], r["to"], -1)
#@     end
`
	// the rewrites of a rule whose paths all end in a field: the parent holds the field (the
	// rewrite matched its value or its null), so no put (15 lines less to compile)
	yttRewritesAtField = `#@     for r in rule["rewrites"]:
#@       if lookup(obj, r["path"]) != r["from"] or r["from"] == None and not present(obj, r["path"]) or lookup(sources["existing"], r["path"]) != r["to"]: continue
#@       parent = lookup(obj, r["path"][:-1]); f = r["path"][-1]["f"]
#@       if r["to"] == None and not present(sources["existing"], r["path"]): parent.pop(f)
#@       if r["to"] != None or present(sources["existing"], r["path"]): parent[f] = r["to"]
#@     end
`
	yttFoldStep = `#@     if rule["stringData"]: fold(obj, sources["existing"])
`
	yttTail = `#@   end
#@   return obj
#@ end
#@overlay/match by=overlay.all
#@overlay/replace via=lambda left, right: rebase(left)
---
`
)

// overlay renders the ytt rebase rule: the program parts its rules use, and their data, one
// entry per rule of r.Parts() with its own sources.
func overlay(r synth.Rule) string {
	var data []map[string]any
	for _, p := range r.Parts() {
		rws := []map[string]any{}
		for _, rw := range p.Rewrites {
			rws = append(rws, map[string]any{"path": steps([]fielddiff.Path{rw.Path})[0], "from": rw.From, "to": rw.To})
		}
		d := map[string]any{"paths": steps(p.Keyed), "empty": steps(p.Empty), "nulls": steps(p.Nulls), "sources": p.Sources,
			"rewrites": rws, "stringData": p.FoldStringData}
		if len(p.Items) > 0 {
			d["items"] = itemSteps(p.Items)
		}
		data = append(data, d)
	}
	js, _ := json.Marshal(data)
	prog, _, _ := program(js)
	return prog
}

// part is one entry of a program's data, as the program reads it.
type part struct {
	Paths, Empty, Nulls, Items [][]map[string]any
	Sources                    []string
	Rewrites                   []struct {
		Path []map[string]any `json:"path"`
	}
	StringData bool `json:"stringData"`
}

// program writes the program of the data js (overlay's), and returns the top-level fields it
// reads of each source (data.values.SOURCE); false if js is no such data or a path does not
// start at a field.
func program(js []byte) (string, map[string][]string, bool) {
	var parts []part
	if err := json.Unmarshal(js, &parts); err != nil {
		return "", nil, false
	}
	var keyed, fold, empty, nulls, rewrites, items bool
	atField := true      // every rewrite's path ends in a field
	var sources []string // the sources read: each rule's for its paths, the live object for the rest
	use := func(s string) {
		if !slices.Contains(sources, s) {
			sources = append(sources, s)
		}
	}
	reads, ok := map[string][]string{}, true
	read := func(s string, ps ...[]map[string]any) {
		for _, p := range ps {
			f, isField := "", len(p) > 0
			if isField {
				f, isField = p[0]["f"].(string)
			}
			ok = ok && isField
			if !slices.Contains(reads[s], f) {
				reads[s] = append(reads[s], f)
			}
		}
	}
	for _, p := range parts {
		for _, rw := range p.Rewrites {
			atField = atField && len(rw.Path) > 0 && rw.Path[len(rw.Path)-1]["f"] != nil
			read("existing", rw.Path)
		}
		pKeyed, pExisting := len(p.Paths) > 0, len(p.Empty)+len(p.Nulls)+len(p.Rewrites)+len(p.Items) > 0 || p.StringData
		for _, s := range p.Sources {
			if pKeyed || s == "existing" && pExisting {
				use(s)
			}
			read(s, p.Paths...)
		}
		if pExisting {
			use("existing")
		}
		read("existing", append(append(p.Empty, p.Nulls...), p.Items...)...)
		if p.StringData {
			read("existing", []map[string]any{{"f": "data"}})
		}
		keyed = keyed || pKeyed
		empty, nulls, rewrites, fold = empty || len(p.Empty) > 0, nulls || len(p.Nulls) > 0, rewrites || len(p.Rewrites) > 0, fold || p.StringData
		items = items || len(p.Items) > 0
	}
	var b strings.Builder
	add := func(part string, need bool) {
		if need {
			b.WriteString(part)
		}
	}
	b.WriteString(strings.Replace(yttHead, "RULES", base64.StdEncoding.EncodeToString(js), 1))
	add(yttLookup, true)
	add(yttPresent, nulls || rewrites)
	add(yttPosition, keyed)
	add(yttItems, items)
	add(yttFold, fold)
	add(yttPut, keyed || empty || rewrites && !atField)
	conv := make([]string, len(sources))
	for i, s := range sources {
		conv[i] = fmt.Sprintf("%q: plain(data.values.%s)", s, s)
	}
	b.WriteString(strings.Replace(yttRebase, "SOURCES", strings.Join(conv, ", "), 1))
	for _, p := range []struct {
		part string
		need bool
	}{{yttPaths, keyed}, {yttItemsStep, items}, {yttEmpty, empty}, {yttNulls, nulls}, {yttRewrites, rewrites && !atField}, {yttRewritesAtField, rewrites && atField}, {yttFoldStep, fold}} {
		if p.need {
			b.WriteString(p.part)
		}
	}
	b.WriteString(yttTail)
	for s := range reads {
		if !slices.Contains(sources, s) {
			delete(reads, s) // a rule's source its program never converts
		}
	}
	return b.String(), reads, ok
}

func steps(paths []fielddiff.Path) [][]map[string]any {
	out := [][]map[string]any{}
	for _, p := range paths {
		var ss []map[string]any
		for _, pe := range p {
			switch {
			case pe.FieldName != nil:
				ss = append(ss, map[string]any{"f": *pe.FieldName})
			case pe.Index != nil:
				ss = append(ss, map[string]any{"i": *pe.Index})
			case pe.Key != nil:
				k := map[string]any{}
				for _, f := range *pe.Key {
					k[f.Name] = f.Value.Unstructured()
				}
				ss = append(ss, map[string]any{"k": k})
			case pe.Value != nil:
				ss = append(ss, map[string]any{"v": (*pe.Value).Unstructured()}) // the item itself, not its YAML text
			}
		}
		out = append(out, ss)
	}
	return out
}

// itemSteps are paths as the items part of a program reads them: {"f": key} for a map key,
// {"a": 1} for a list step (every item, matched by content: Rule.Items).
func itemSteps(paths []fielddiff.Path) [][]map[string]any {
	out := [][]map[string]any{}
	for _, p := range paths {
		var ss []map[string]any
		for _, pe := range p {
			if pe.FieldName != nil {
				ss = append(ss, map[string]any{"f": *pe.FieldName})
			} else {
				ss = append(ss, map[string]any{"a": 1})
			}
		}
		out = append(out, ss)
	}
	return out
}
