package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/rebasegen/rebasegen/generator/capture"
	"github.com/rebasegen/rebasegen/generator/emit"
	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/escape"
	"github.com/rebasegen/rebasegen/internal/generated"
	"github.com/rebasegen/rebasegen/internal/words"
)

func captureCommand() *cli.Command {
	return &cli.Command{
		Name:  "capture",
		Usage: "read a kapp app's live objects (read-only) into live.yaml and desired.yaml, Secret values redacted, the server's version into server-version.json, and the CRDs of its custom resources into crds.yaml (for --crd)",
		Description: helpText("rebasegen capture --app my-app -n my-namespace --output-directory captured/",
			"0 captured (kinds that could not be read are warned about)", "1 usage, kubeconfig or API error"),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "app", Aliases: []string{"a"}, Usage: "kapp app name"},
			&cli.StringFlag{Name: "argocd-app", Usage: "an Argo CD Application instead, as its tracking names it: NAME, or NAMESPACE_NAME for one outside Argo CD's namespace; captures the objects it tracks"},
			&cli.StringFlag{Name: "argocd-tracking", Value: string(capture.TrackingAnnotation), Usage: "with --argocd-app: Argo CD's resource tracking method (argocd-cm application.resourceTrackingMethod): annotation, label or annotation+label"},
			&cli.StringFlag{Name: "package-install", Usage: "a kapp-controller PackageInstall or App, [NAMESPACE/]NAME: captures its kapp app NAME.app (in NAMESPACE, else --namespace)"},
			&cli.StringFlag{Name: "namespace", Aliases: []string{"n"}, Value: "default", Usage: "namespace of the app (its ConfigMap)"},
			&cli.StringFlag{Name: "kubeconfig", Usage: "kubeconfig file (default: $KUBECONFIG or ~/.kube/config)"},
			&cli.StringFlag{Name: "context", Usage: "kubeconfig context"},
			// kubectl cluster-info dump's name: -o is a format in every command
			&cli.StringFlag{Name: "output-directory", Required: true, Usage: "directory to write live.yaml, desired.yaml, server-version.json and crds.yaml into"},
			&cli.IntFlag{Name: "retries", Value: 3, Usage: "retries per kind on transient errors"},
			&cli.DurationFlag{Name: "request-timeout", Value: time.Minute, Usage: "how long to wait for the API server's answer to each request (0: for ever); a kind not listed within it is warned about"},
		},
		Action: func(c *cli.Context) error {
			app := c.String("app")
			if app != "" && c.String("package-install") != "" {
				return fmt.Errorf("--app %s and --package-install %s: give one (a PackageInstall's kapp app is NAME.app)", escape.Text(app), escape.Text(c.String("package-install")))
			}
			argoApp := c.String("argocd-app")
			if argoApp != "" && (app != "" || c.String("package-install") != "") {
				return fmt.Errorf("--argocd-app %s: give it alone (--app and --package-install name kapp apps)", escape.Text(argoApp))
			}
			tracking, err := capture.ParseTracking(c.String("argocd-tracking"))
			if err != nil {
				return fmt.Errorf("--argocd-tracking %s: %w", escape.Text(c.String("argocd-tracking")), err)
			}
			if argoApp != "" && c.IsSet("namespace") {
				return fmt.Errorf("--argocd-app %s and --namespace: an Application's objects are found in every namespace; one outside Argo CD's namespace is named NAMESPACE_NAME, as its tracking writes it", escape.Text(argoApp))
			}
			if argoApp != "" {
				app = argoApp
			}
			namespace := c.String("namespace")
			if pi := c.String("package-install"); pi != "" {
				ns, name := emit.PackageInstallRef(pi)
				app = name + ".app" // kapp-controller v0.51.0 pkg/deploy/factory.go; NAME-ctrl before, migrated by kapp --prev-app
				switch {
				case ns != "" && c.IsSet("namespace") && namespace != ns:
					return fmt.Errorf("--package-install %s and --namespace %s: give the namespace once (kapp-controller keeps the kapp app %s in the PackageInstall's namespace)", escape.Text(pi), escape.Text(namespace), escape.Text(app))
				case ns != "":
					namespace = ns // kapp-controller deploys with --app-namespace: the PackageInstall's (pkg/deploy/kapp.go)
				}
			}
			if app == "" {
				return fmt.Errorf("--app, --package-install or --argocd-app is required")
			}
			dir := c.String("output-directory")
			if err := captureDirectory(dir); err != nil {
				return err
			}
			rules := clientcmd.NewDefaultClientConfigLoadingRules()
			rules.ExplicitPath = c.String("kubeconfig")
			loader := boundedKubeconfig{ClientConfigLoadingRules: rules, reader: load.NewReader(nil), context: c.String("context")}
			cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loader, &clientcmd.ConfigOverrides{CurrentContext: c.String("context")}).ClientConfig()
			if err != nil && clientcmd.IsEmptyConfig(err) && rules.ExplicitPath == "" {
				return noKubeconfig(rules.Precedence)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", kubeconfigSource(rules), err)
			}
			opts := capture.Options{App: app, Namespace: namespace, Retries: c.Int("retries"), RequestTimeout: c.Duration("request-timeout")}
			if argoApp != "" {
				opts = capture.Options{ArgoApp: argoApp, ArgoTracking: tracking, Retries: c.Int("retries"), RequestTimeout: c.Duration("request-timeout")}
			}
			if !isQuiet(c) && isTTY(os.Stderr) {
				opts.Progress = func(done, total int) { fmt.Fprintf(c.App.ErrWriter, "\rcapturing: %d/%d kinds", done, total) }
			}
			res, err := capture.Run(context.Background(), cfg, opts)
			if opts.Progress != nil {
				fmt.Fprintln(c.App.ErrWriter)
			}
			if noApp := (*capture.NoApp)(nil); errors.As(err, &noApp) {
				return errors.New(noApp.Error() + noAppHint(noApp))
			}
			if err != nil {
				return err
			}
			what := "app " + namespace + "/" + app
			if argoApp != "" {
				what = "Argo CD Application " + argoApp
			}
			// the header by which a later capture knows these files for its own (captureDirectory)
			captured := func(objs []*unstructured.Unstructured) []byte {
				return []byte(generated.Seal(generated.CaptureHeader(escape.Text(version), escape.Text(what)) + string(multiDoc(objs))))
			}
			files := map[string][]byte{load.CaptureLive: captured(res.Live), load.CaptureDesired: captured(res.Desired),
				// the server's version: its defaults are what the live objects hold (read back by
				// explain, generate and check beside the live file)
				load.ServerVersionFile: append(bytes.TrimSpace(res.ServerVersion), '\n')}
			crds := ""
			if len(res.CRDs) > 0 {
				// their schemas default the custom resources offline: read with --crd
				files[load.CaptureCRDs] = captured(res.CRDs)
				crds = fmt.Sprintf(", and the %s of its custom resources into %s (pass it with --crd)", count(len(res.CRDs), "CRD"), escape.Text(filepath.Join(dir, load.CaptureCRDs)))
			}
			if err := writeCapture(dir, files); err != nil {
				return fmt.Errorf("--output-directory %s: %w", escape.Text(dir), err)
			}
			for _, f := range res.Failures {
				fmt.Fprintf(c.App.ErrWriter, "warning: %s not captured: %s\n", escape.Text(f.Resource), escape.Lines(f.Err.Error()))
			}
			fmt.Fprintf(c.App.ErrWriter, "captured %s of %s into %s%s\n", count(len(res.Live), "object"), escape.Text(what), escape.Text(dir), crds)
			return nil
		},
	}
}

// captureFiles are the files capture writes into its directory.
var captureFiles = []string{load.CaptureLive, load.CaptureDesired, load.CaptureCRDs, load.ServerVersionFile}

// writeCapture replaces the capture files in dir with files, as a set: each is written to a
// temporary file in dir first (an error there leaves dir as it was), then renamed over its
// name, and a capture file not in files (crds.yaml of an earlier capture with custom
// resources) is removed: a file left from an earlier capture would be read with this one's
// (`--live DIR` reads crds.yaml as --crd). A directory that did not exist is removed again when
// writing fails.
func writeCapture(dir string, files map[string][]byte) (err error) {
	if _, statErr := os.Stat(dir); os.IsNotExist(statErr) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		defer func() {
			if err != nil {
				os.RemoveAll(dir)
			}
		}()
	}
	tmps := map[string]string{}
	defer func() {
		for _, tmp := range tmps {
			os.Remove(tmp) // renamed ones are gone already
		}
	}()
	for _, name := range captureFiles {
		data, ok := files[name]
		if !ok {
			continue
		}
		tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
		if err != nil {
			return err
		}
		tmps[name] = tmp.Name()
		_, err = tmp.Write(data)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(tmp.Name(), 0o644)
		}
		if err != nil {
			return err
		}
	}
	for _, name := range captureFiles {
		path := filepath.Join(dir, name)
		if tmp, ok := tmps[name]; ok {
			if err := os.Rename(tmp, path); err != nil {
				return err
			}
		} else if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// captureDirectory refuses an output directory holding files capture does not write (a package's
// config directory, one slip away from "the package's config directory" the rules go into): ytt,
// kapp-controller and --package would read the live copies with the templates, and a later
// error would not say where they came from. The files of an earlier capture are replaced, when
// capture wrote them: its header, their digest unchanged (server-version.json: a GET /version
// body); a file named like capture's but hand-written (desired.yaml is the name manifests go by)
// or edited since is refused, as generate refuses to replace a file it did not write (probe16
// P16-9).
func captureDirectory(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // absent (made later), or not a directory: writing into it says why
	}
	var foreign []string
	for _, e := range entries {
		if !slices.Contains(captureFiles, e.Name()) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		shown := foreign[:min(len(foreign), 5)]
		more := ""
		if len(foreign) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(foreign)-len(shown))
		}
		return fmt.Errorf("--output-directory %s holds files capture does not write (%s%s): a package's ytt (or kapp-controller) would read the captured live objects with them; capture into a directory of its own", escape.Text(dir), escape.Text(strings.Join(shown, ", ")), more)
	}
	r := load.NewReader(nil)
	for _, name := range captureFiles {
		path := filepath.Join(dir, name)
		data, err := r.ReadFound(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("--output-directory %s: %w", escape.Text(dir), err)
		}
		if why := notCaptured(name, data); why != "" {
			return fmt.Errorf("--output-directory %s: %s %s; capture replaces only the files it wrote, as it wrote them: move it away (or capture into another directory)", escape.Text(dir), name, why)
		}
	}
	return nil
}

// notCaptured says why data, an existing file of a capture directory named name, is not one
// capture wrote, or "". A blank file holds nothing to lose.
func notCaptured(name string, data []byte) string {
	if len(bytes.TrimSpace(data)) == 0 {
		return ""
	}
	if name == load.ServerVersionFile {
		if _, err := load.ParseServerVersion(data, name); err != nil {
			return "is not the API server's GET /version body capture writes (" + escape.Text(err.Error()) + ")"
		}
		return ""
	}
	switch generated.Captured(data) {
	case generated.Intact:
		return ""
	case generated.Edited:
		return "was edited since capture wrote it (its digest does not match)"
	}
	return "has no capture header (#! Captured by rebasegen ...): a file of yours, or of a capture before rebasegen wrote the header"
}

// noKubeconfig explains an empty client configuration read from files (the kubeconfig files
// $KUBECONFIG names, else ~/.kube/config): client-go skips the files that do not exist, and then
// suggests setting KUBERNETES_MASTER.
func noKubeconfig(files []string) error {
	var missing []string
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			missing = append(missing, f)
		}
	}
	from := "the default, $KUBECONFIG being unset"
	if os.Getenv("KUBECONFIG") != "" {
		from = "from $KUBECONFIG"
	}
	if len(missing) == len(files) {
		return fmt.Errorf("no kubeconfig: %s (%s) does not exist; give --kubeconfig FILE or point $KUBECONFIG at one", escape.Text(strings.Join(missing, ", ")), from)
	}
	return fmt.Errorf("kubeconfig %s (%s): no cluster in it; give --kubeconfig FILE or --context", escape.Text(strings.Join(files, ", ")), from)
}

// count is "1 rule", "2 rules".
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// kubeconfigSource names where the kubeconfig was read from, for an error.
func kubeconfigSource(rules *clientcmd.ClientConfigLoadingRules) string {
	switch {
	case rules.ExplicitPath != "":
		return "--kubeconfig " + escape.Text(rules.ExplicitPath)
	case os.Getenv(clientcmd.RecommendedConfigPathEnvVar) != "":
		return "$KUBECONFIG " + escape.Text(os.Getenv(clientcmd.RecommendedConfigPathEnvVar))
	}
	return "kubeconfig " + escape.Text(strings.Join(rules.Precedence, ", "))
}

func multiDoc(objs []*unstructured.Unstructured) []byte {
	var b bytes.Buffer
	for _, o := range objs {
		bs, _ := yaml.Marshal(o.Object)
		b.WriteString("---\n")
		b.Write(bs)
	}
	return b.Bytes()
}

// noAppHint is the hint for an app capture found no ConfigMap of: the namespace holding an app
// of that name (a wrong or missing -n), else the app name closest to it (closest: a misspelt
// --app), in the namespace given or another, else the apps the namespace holds, else the
// namespaces holding apps; "" when the cluster holds none (or listing them was refused). Every
// name in it, given or listed, is escaped (escape.Text).
func noAppHint(e *capture.NoApp) string {
	var sameName, here, names []string
	for _, a := range e.Apps {
		if a.Name == e.App {
			sameName = append(sameName, escape.Text(a.Namespace))
		}
		if a.Namespace == e.Namespace {
			here = append(here, a.Name)
		}
		names = append(names, a.Name)
	}
	app, namespace := escape.Text(e.App), escape.Text(e.Namespace)
	if len(sameName) > 0 {
		return fmt.Sprintf("\nhint: did you mean -n %s? kapp app %s is in namespace %s", sameName[0], app, words.List(sameName, 3))
	}
	inHere := "the kapp apps in namespace " + namespace + ": " + escape.Text(words.List(here, 5))
	if m := closest(names, e.App); slices.Contains(here, m) {
		return fmt.Sprintf("\nhint: did you mean --app %s? (%s)", escape.Text(m), inHere)
	} else if m != "" {
		m, ns := escape.Text(m), escape.Text(e.Apps[slices.Index(names, m)].Namespace)
		return fmt.Sprintf("\nhint: did you mean --app %s -n %s? kapp app %s is in namespace %s", m, ns, m, ns)
	}
	if len(here) > 0 {
		return "\nhint: " + inHere
	}
	var namespaces []string
	for _, a := range e.Apps {
		if !slices.Contains(namespaces, a.Namespace) {
			namespaces = append(namespaces, a.Namespace)
		}
	}
	if len(namespaces) == 0 {
		return ""
	}
	return "\nhint: namespace " + namespace + " holds no kapp app; the namespaces holding kapp apps: " + escape.Text(words.List(namespaces, 5))
}
