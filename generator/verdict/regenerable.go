package verdict

// What regenerating a rule file from this check's manifests would end: the ghost diffs it leaves
// and the changes made in Git it hides.

// regenerable names the residual ghost diffs rules regenerated from the manifests may remove:
// those classified on a field; not kapp's bare word that it still updates a resource, which a
// rule in force (a hand-written one) may cause, nor a covered field such a rule brings back.
func (in Regeneration) regenerable() []string {
	var out []string
	for _, r := range in.Residual {
		// kapp's built-in rules cover a field a remove rule in force brings back: no regeneration
		// ends that ghost diff, removing the rule does
		if r.Finding.Class.Ghost() && len(r.Finding.Path) > 0 && !r.Finding.Covered() {
			out = append(out, r.Resource.String()+" "+r.Finding.Path.String())
		}
	}
	return out
}

// hiddenBy names the changes made in Git file's rules hide that rules regenerated from the
// manifests let through (generate never writes a rule hiding one): not a change hidden only by
// several files together, kapp's built-in rules, or a rule right while a controller owns the
// field (the change is made where the controller's input is). refused are those with which the
// API server refuses the object kapp applies (Hidden.Refused): the deploy fails on them.
func (in Regeneration) hiddenBy(file string) (hidden, refused []string) {
	for _, h := range in.Hidden {
		if h.At.File == file && !h.Together && !h.Builtin && h.Owner == "" {
			if h.Refused {
				refused = append(refused, h.Resource.String()+" "+h.Path)
			} else {
				hidden = append(hidden, h.Resource.String()+" "+h.Path)
			}
		}
	}
	return hidden, refused
}
