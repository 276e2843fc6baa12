// Command importer is a program that imports rebasegen's compare package as a controller would:
// it builds with exactly the go.mod lines the README's "As a library" section gives, and it
// links neither kapp, ytt nor a command-line library.
package main

import (
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rebasegen/rebasegen/compare"
)

func main() {
	c, err := compare.New(compare.WithApply("importer"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	r, err := c.Compare(cm, cm.DeepCopy())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(r.Verdict)
}
