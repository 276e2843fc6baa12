package rulesets

import (
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
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
