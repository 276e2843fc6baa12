package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/rebasegen/rebasegen/generator/load"
	"github.com/rebasegen/rebasegen/internal/escape"
)

// boundedKubeconfig loads the kubeconfig as client-go's ClientConfigLoadingRules does (--kubeconfig,
// else every path of $KUBECONFIG merged, else ~/.kube/config) but reads every file with
// load.Reader: client-go reads them with os.ReadFile, without limit ($KUBECONFIG=/dev/zero ran
// capture out of memory, probe16 P16-8). The files the kubeconfig names for the context in use
// (certificate-authority, client-certificate, client-key, tokenFile), which client-go's transport
// reads the same way, are read here too and handed to client-go as the data fields it prefers.
type boundedKubeconfig struct {
	*clientcmd.ClientConfigLoadingRules
	reader  *load.Reader
	context string // --context: the context whose files are read (else the current context)
}

// Load implements clientcmd.ClientConfigLoader.
func (k boundedKubeconfig) Load() (*clientcmdapi.Config, error) {
	files := k.Precedence
	if k.ExplicitPath != "" {
		files = []string{k.ExplicitPath}
	}
	var configs []*clientcmdapi.Config
	for _, f := range files {
		if f == "" {
			continue
		}
		data, err := k.reader.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) && k.ExplicitPath == "" {
			continue // client-go skips the missing files of $KUBECONFIG (noKubeconfig says when all are)
		}
		if err != nil {
			return nil, err
		}
		cfg, err := clientcmd.Load(data)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", escape.Text(f), err)
		}
		// clientcmd.LoadFromFile's: relative paths are the file's (ResolveLocalPaths)
		for _, c := range cfg.Clusters {
			c.LocationOfOrigin = f
		}
		for _, a := range cfg.AuthInfos {
			a.LocationOfOrigin = f
		}
		for _, c := range cfg.Contexts {
			c.LocationOfOrigin = f
		}
		configs = append(configs, cfg)
	}
	merged := firstWins(configs)
	if err := clientcmd.ResolveLocalPaths(merged); err != nil {
		return nil, err
	}
	name := k.context
	if name == "" {
		name = merged.CurrentContext
	}
	if ctx := merged.Contexts[name]; ctx != nil {
		if err := k.inline(merged.Clusters[ctx.Cluster], merged.AuthInfos[ctx.AuthInfo]); err != nil {
			return nil, err
		}
	}
	return merged, nil
}

// firstWins merges kubeconfigs as client-go's loader does: the first file to set a value or a
// map key (a cluster, user or context by name) wins.
func firstWins(configs []*clientcmdapi.Config) *clientcmdapi.Config {
	out := clientcmdapi.NewConfig()
	for _, c := range configs {
		addNew(out.Clusters, c.Clusters)
		addNew(out.AuthInfos, c.AuthInfos)
		addNew(out.Contexts, c.Contexts)
		addNew(out.Extensions, c.Extensions)
		if out.CurrentContext == "" {
			out.CurrentContext = c.CurrentContext
		}
	}
	return out
}

func addNew[V any](dst, src map[string]V) {
	for k, v := range src {
		if _, ok := dst[k]; !ok {
			dst[k] = v
		}
	}
}

// inline reads the files cluster and user name into their data fields, and drops the names: data
// is what client-go uses when both are set. A file named beside its data is still read (bounded),
// and both kept: client-go refuses that pair, as it did.
func (k boundedKubeconfig) inline(cluster *clientcmdapi.Cluster, user *clientcmdapi.AuthInfo) error {
	if cluster != nil {
		if err := k.file(&cluster.CertificateAuthority, &cluster.CertificateAuthorityData, cluster.LocationOfOrigin, "certificate-authority"); err != nil {
			return err
		}
	}
	if user == nil {
		return nil
	}
	if err := k.file(&user.ClientCertificate, &user.ClientCertificateData, user.LocationOfOrigin, "client-certificate"); err != nil {
		return err
	}
	if err := k.file(&user.ClientKey, &user.ClientKeyData, user.LocationOfOrigin, "client-key"); err != nil {
		return err
	}
	if user.TokenFile == "" {
		return nil
	}
	var token []byte
	if err := k.file(&user.TokenFile, &token, user.LocationOfOrigin, "tokenFile"); err != nil {
		return err
	}
	// client-go's transport sends the file's token, trimmed, whenever it can read the file, even
	// beside a token (transport.NewBearerAuthWithRefreshRoundTripper)
	user.Token, user.TokenFile = strings.TrimSpace(string(token)), ""
	return nil
}

// file reads *path into *data (unless data is set), clearing *path; field names it in an error.
func (k boundedKubeconfig) file(path *string, data *[]byte, origin, field string) error {
	if *path == "" {
		return nil
	}
	b, err := k.reader.ReadFound(*path)
	if err != nil {
		return fmt.Errorf("the %s of %s: %w", field, escape.Text(origin), err) // err names the path, resolved
	}
	if len(*data) == 0 {
		*data, *path = b, ""
	}
	return nil
}
