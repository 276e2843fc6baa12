package scenario

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Webhook is a real mutating admission webhook the harness serves on 127.0.0.1 while the
// scenario runs, registered with a MutatingWebhookConfiguration for the scenario's namespace:
// the API server calls it during kapp's own create, so managedFields credit kapp for what it adds
// (kubernetes/kubernetes#87672), as with any webhook on a real cluster.
type Webhook struct {
	Rules []admissionregv1.RuleWithOperations `json:"rules"`
	// Patch is the RFC 6902 JSON patch returned for every request the rules match.
	Patch json.RawMessage `json:"patch"`
}

// probeLabel selects the ConfigMap a dry-run create sends to the webhook to learn that the API
// server has loaded its configuration.
const probeLabel = "rebasegen.dev/webhook-probe"

type webhookServer struct {
	srv   *http.Server
	calls atomic.Int64
}

func webhookName(s *Scenario) string { return "rebasegen-" + s.Name }

// startWebhook serves the scenario's webhook and registers it; it returns when the API server
// calls it.
func (r *runner) startWebhook(ctx context.Context) error {
	w := r.s.Webhook
	cert, caPEM, err := selfSigned()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	ws := &webhookServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/mutate", func(rw http.ResponseWriter, req *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(req.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(rw, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		ws.calls.Add(1)
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		if review.Request.Resource.Resource != "configmaps" { // the probe is not mutated
			pt := admissionv1.PatchTypeJSONPatch
			resp.Patch, resp.PatchType = w.Patch, &pt
		}
		review.Response, review.Request = resp, nil
		_ = json.NewEncoder(rw).Encode(review)
	})
	ws.srv = &http.Server{Handler: mux, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = ws.srv.ServeTLS(ln, "", "") }()
	r.s.webhook = ws

	url := fmt.Sprintf("https://%s/mutate", ln.Addr())
	none, fail, never := admissionregv1.SideEffectClassNone, admissionregv1.Fail, admissionregv1.NeverReinvocationPolicy
	timeout := int32(10)
	inNamespace := &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: r.s.Namespace}}
	hook := func(name string, rules []admissionregv1.RuleWithOperations, objects *metav1.LabelSelector) admissionregv1.MutatingWebhook {
		return admissionregv1.MutatingWebhook{
			Name: name, ClientConfig: admissionregv1.WebhookClientConfig{URL: &url, CABundle: caPEM},
			Rules: rules, FailurePolicy: &fail, SideEffects: &none, TimeoutSeconds: &timeout,
			AdmissionReviewVersions: []string{"v1"}, NamespaceSelector: inNamespace, ObjectSelector: objects,
			ReinvocationPolicy: &never,
		}
	}
	probeRules := []admissionregv1.RuleWithOperations{{Operations: []admissionregv1.OperationType{admissionregv1.Create},
		Rule: admissionregv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}}
	mwc := &admissionregv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: webhookName(r.s)},
		Webhooks: []admissionregv1.MutatingWebhook{
			hook("mutate.rebasegen.dev", w.Rules, nil),
			hook("probe.rebasegen.dev", probeRules, &metav1.LabelSelector{MatchLabels: map[string]string{probeLabel: "true"}}),
		},
	}
	if _, err := r.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, mwc, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("%s: registering the webhook: %w", r.s.Name, err)
	}
	probe := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "webhook-probe", Labels: map[string]string{probeLabel: "true"}}}
	dry := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if _, err := r.kube.CoreV1().ConfigMaps(r.s.Namespace).Create(ctx, probe, dry); err == nil && ws.calls.Load() > 0 {
			fmt.Fprintf(r.log, "  webhook %s serving on %s\n", mwc.Name, ln.Addr())
			return nil
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
	return fmt.Errorf("%s: the API server did not call the webhook within 30s", r.s.Name)
}

// stopWebhook unregisters the webhook and stops its server.
func (r *runner) stopWebhook(ctx context.Context) error {
	err := r.kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Delete(ctx, webhookName(r.s), metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		err = nil
	}
	if r.s.webhook != nil {
		_ = r.s.webhook.srv.Close()
		r.s.webhook = nil
	}
	return err
}

// selfSigned makes a serving certificate for 127.0.0.1 and returns it with its PEM, which the
// webhook configuration carries as its caBundle.
func selfSigned() (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rebasegen-webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
