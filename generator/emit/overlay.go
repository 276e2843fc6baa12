package emit

import (
	"encoding/base64"
	"encoding/json"
	"strings"

	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/rebasegen/rebasegen/generator/fielddiff"
)

// overlayProgram is the fixed part of every keyed rebase rule: kapp runs it with the working
// copy as the document and data.values.new / data.values.existing as the two sources. It
// selects list items by their merge keys, never by position (a key field the item leaves out is
// the schema's default, e.g. protocol TCP, so it does not prevent a match), and takes each path
// from the first source that has it, like kapp's copy. "empty" paths get an empty map when the
// working copy lacks one the live object has: narrower than copying the live map's contents. The paths are data (base64 JSON), so nothing taken from
// the inputs is ever evaluated as code.
const overlayProgram = `#@ load("@ytt:data", "data")
#@ load("@ytt:overlay", "overlay")
#@ load("@ytt:yaml", "yaml")
#@ load("@ytt:json", "json")
#@ load("@ytt:base64", "base64")

#@ rule = json.decode(base64.decode("RULE"))

#@ def plain(v):
#@   return yaml.decode(yaml.encode(v))
#@ end

#@ def matches(item, s):
#@   if "v" in s:
#@     return item == s["v"]
#@   end
#@   if type(item) != "dict":
#@     return False
#@   end
#@   found = False
#@   for k in s["k"]:
#@     if k in item:
#@       if item[k] != s["k"][k]:
#@         return False
#@       end
#@       found = True
#@     end
#@   end
#@   return found
#@ end

#@ def step(node, s):
#@   if "f" in s:
#@     if type(node) == "dict" and s["f"] in node:
#@       return node[s["f"]]
#@     end
#@     return None
#@   end
#@   if type(node) != "list":
#@     return None
#@   end
#@   if "i" in s:
#@     if int(s["i"]) < len(node):
#@       return node[int(s["i"])]
#@     end
#@     return None
#@   end
#@   for item in node:
#@     if matches(item, s):
#@       return item
#@     end
#@   end
#@   return None
#@ end

#@ def lookup(node, steps):
#@   for s in steps:
#@     if node == None:
#@       return None
#@     end
#@     node = step(node, s)
#@   end
#@   return node
#@ end

#@ def put(node, steps, v):
#@   for s in steps[:-1]:
#@     nxt = step(node, s)
#@     if nxt == None and "f" in s and type(node) == "dict":
#@       node[s["f"]] = {}
#@       nxt = node[s["f"]]
#@     end
#@     if nxt == None:
#@       return
#@     end
#@     node = nxt
#@   end
#@   last = steps[-1]
#@   if "f" in last:
#@     if type(node) == "dict":
#@       node[last["f"]] = v
#@     end
#@     return
#@   end
#@   if type(node) != "list":
#@     return
#@   end
#@   for i in range(len(node)):
#@     if matches(node[i], last):
#@       node[i] = v
#@       return
#@     end
#@   end
#@   node.append(v)
#@ end

#@ def rebase(left):
#@   obj = plain(left)
#@   sources = {"new": plain(data.values.new), "existing": plain(data.values.existing)}
#@   for steps in rule["paths"]:
#@     for name in rule["sources"]:
#@       v = lookup(sources[name], steps)
#@       if v != None:
#@         put(obj, steps, v)
#@         break
#@       end
#@     end
#@   end
#@   for steps in rule["empty"]:
#@     if lookup(obj, steps) == None and lookup(sources["existing"], steps) != None:
#@       put(obj, steps, {})
#@     end
#@   end
#@   return obj
#@ end

#@overlay/match by=overlay.all
#@overlay/replace via=lambda left, right: rebase(left)
---
`

// overlay renders the ytt rebase rule for keyed paths.
func overlay(paths, empty []fielddiff.Path, sources []string) string {
	js, _ := json.Marshal(map[string]any{"paths": steps(paths), "empty": steps(empty), "sources": sources})
	return strings.Replace(overlayProgram, "RULE", base64.StdEncoding.EncodeToString(js), 1)
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
				ss = append(ss, map[string]any{"v": value.ToString(*pe.Value)})
			}
		}
		out = append(out, ss)
	}
	return out
}
