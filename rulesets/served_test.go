package rulesets

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The group/versions rulesets/served holds for the linked Kubernetes version (hack/served read
// them from its server's discovery) are the ones k8s.io/kubernetes' own default API resource
// config enables: pkg/controlplane/instance.go's genericStableAPIGroupVersionsEnabledByDefault
// and stableAPIGroupVersionsEnabledByDefault (each group read from its k8s.io/api package's
// GroupName), and the two extension servers kube-apiserver runs (apiextensions.k8s.io/v1,
// apiregistration.k8s.io/v1). A go.mod bump fails here until hack/served is run again.
func TestServedGroupVersionsAreTheDefaultAPIResourceConfigs(t *testing.T) {
	k8s := kubernetesSource(t)
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}}", "k8s.io/api").Output()
	api, apiVersion, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if err != nil || api == "" {
		t.Fatalf("go list -m k8s.io/api: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(k8s, "pkg", "controlplane", "instance.go"))
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{} // alias: the package's directory
	for _, m := range regexp.MustCompile(`(?m)^\s*(\w+) "k8s\.io/(api|kubernetes)/([\w/]+)"$`).FindAllSubmatch(src, -1) {
		root := api
		if string(m[2]) == "kubernetes" {
			root = k8s
		}
		imports[string(m[1])] = filepath.Join(root, string(m[3]))
	}
	want := []string{"apiextensions.k8s.io/v1", "apiregistration.k8s.io/v1"}
	for _, list := range []string{"genericStableAPIGroupVersionsEnabledByDefault", "stableAPIGroupVersionsEnabledByDefault"} {
		body := regexp.MustCompile(`(?s)\b` + list + ` = \[\]schema\.GroupVersion\{(.*?)\n\t\}`).FindSubmatch(src)
		if body == nil {
			t.Fatalf("instance.go: no %s", list)
		}
		for _, m := range regexp.MustCompile(`(\w+)\.SchemeGroupVersion`).FindAllSubmatch(body[1], -1) {
			pkg, ok := imports[string(m[1])]
			if !ok {
				t.Fatalf("instance.go: %s: no import %s", list, m[1])
			}
			reg, err := os.ReadFile(filepath.Join(pkg, "register.go"))
			if err != nil {
				t.Fatal(err)
			}
			g := regexp.MustCompile(`const GroupName = "([^"]*)"`).FindSubmatch(reg)
			if g == nil {
				t.Fatalf("%s/register.go: no GroupName", pkg)
			}
			gv := path.Base(pkg)
			if len(g[1]) > 0 {
				gv = string(g[1]) + "/" + gv
			}
			want = append(want, gv)
		}
	}
	slices.Sort(want)

	all, err := ServedVersions()
	if err != nil {
		t.Fatal(err)
	}
	minor := strings.Join(strings.SplitN(strings.TrimPrefix(apiVersion, "v0."), ".", 2)[:1], "") // v0.37.2: 37
	i := slices.IndexFunc(all, func(s Served) bool { return strings.HasPrefix(s.Version, "v1."+minor+".") })
	if i < 0 {
		t.Fatalf("rulesets/served: no data for v1.%s, the linked version (hack/served)", minor)
	}
	var got []string
	for _, gv := range all[i].GroupVersions {
		got = append(got, gv.GroupVersion)
		if len(gv.Kinds) == 0 {
			t.Errorf("rulesets/served %s: %s serves no kind", all[i].Version, gv.GroupVersion)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("rulesets/served %s holds\n%v\nk8s.io/kubernetes pkg/controlplane enables by default\n%v", all[i].Version, got, want)
	}
}

// Every entry of rulesets/removed/apiversions.yaml cites its release's section of the Deprecated
// API Migration Guide (its anchors end in -vMAJORMINOR: #horizontalpodautoscaler-v126), and no
// kube-apiserver rulesets/served read at or after that release lists the kind at that version:
// the hand-copied removals agree with what the servers measured serve (a removal the data
// contradicts, or a typo in a group or kind the servers still serve, fails here).
func TestRemovedAPIVersionsAreNotServed(t *testing.T) {
	removed, err := RemovedAPIVersions()
	if err != nil {
		t.Fatal(err)
	}
	all, err := ServedVersions()
	if err != nil {
		t.Fatal(err)
	}
	const guide = "https://kubernetes.io/docs/reference/using-api/deprecation-guide/#"
	checked := 0
	for _, r := range removed {
		anchor := "-v" + strings.ReplaceAll(strings.TrimPrefix(r.RemovedIn, "v"), ".", "")
		if !strings.HasPrefix(r.Source, guide) || !strings.HasSuffix(r.Source, anchor) {
			t.Errorf("%s %v: source %q is not the guide's section of %s (%s...%s)", r.APIVersion, r.Kinds, r.Source, r.RemovedIn, guide, anchor)
		}
		for _, s := range all {
			if semverLess(s.Version, r.RemovedIn) {
				continue
			}
			for _, gv := range s.GroupVersions {
				for _, k := range r.Kinds {
					if gv.GroupVersion == r.APIVersion && slices.Contains(gv.Kinds, k) {
						t.Errorf("%s %s: removed in %s, but rulesets/served %s serves it", r.APIVersion, k, r.RemovedIn, s.Version)
					}
				}
			}
			checked++
		}
	}
	if len(removed) == 0 || checked == 0 {
		t.Fatalf("nothing checked: %d removals", len(removed))
	}
}

// semverLess says whether v1.25.16 is older than the release v1.26, by minor version.
func semverLess(version, release string) bool {
	minor := func(v string) int {
		n, _ := strconv.Atoi(strings.Split(v, ".")[1])
		return n
	}
	return minor(version) < minor(release)
}
