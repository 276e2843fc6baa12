package verify

import (
	"strconv"
	"strings"
	"sync"

	ctlconf "carvel.dev/kapp/pkg/kapp/config"
)

// kappConfs holds what kapp made of config sources already seen, keyed on their exact JSON bytes:
// generate verifies ~33 times (verification, mutation rounds) with the same package Configs and
// rules, and validating them and building kapp's Conf on every call (kapp parses its built-in
// default config again each time) took 2.4 s of 17.4 s CPU on the fixture corpus (1,000 pairs).
//
// One Conf serves every call and worker because nothing writes it after parsing: its methods
// return new slices and new mods, and kapp's mods and matchers only read the rules' paths
// (resources/mod_*.go build new Paths when they expand them). The mods themselves, which carry
// a call's rule timing, are still made per worker (changeFactory).
var kappConfs = &confCache{}

// confCacheMax bounds each map; past it the map starts over (a long-running caller with ever new
// rules must not keep them all).
const confCacheMax = 64

type confCache struct {
	mods  memo[int]          // one source's JSON -> rebase mods it makes (validated)
	confs memo[ctlconf.Conf] // every source's JSON, in order -> kapp's Conf
}

// validate is validateConfig, once per distinct source. Failures are not kept (and may panic,
// as validateConfig does).
func (c *confCache) validate(bs []byte) (int, error) {
	return c.mods.get(string(bs), func() (int, error) { return validateConfig(bs) })
}

// conf is build(), once per distinct list of sources. Failures are not kept.
func (c *confCache) conf(sources [][]byte, build func() (ctlconf.Conf, error)) (ctlconf.Conf, error) {
	var key strings.Builder
	for _, bs := range sources {
		key.WriteString(strconv.Itoa(len(bs)))
		key.WriteByte(':')
		key.Write(bs)
	}
	return c.confs.get(key.String(), build)
}

// memo keeps build's successful results by key, at most confCacheMax of them.
type memo[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

func (c *memo[V]) get(key string, build func() (V, error)) (V, error) {
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= confCacheMax {
		c.m = map[string]V{}
	}
	c.m[key] = v
	return v, nil
}

// len is how many results are kept.
func (c *memo[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
