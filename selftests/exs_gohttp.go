// SPDX-License-Identifier: GPL-2.0
//
// exs_gohttp: a Go HTTP server and client, built static (CGO_ENABLED=0),
// for exs_pair.sh.  Go makes its own system calls, so no preload reaches
// its sockets: under exs-run they are AF_EXS ones only where exs-run goes
// by BPF (update_socket_protocol(), tools/exsconfig/transparent.bpf.c).
//
//	exs_gohttp serve PORT FILE    serve FILE at / until killed
//	exs_gohttp get URL SHAFILE    fetch URL three times on one kept-alive
//	                              connection; each body's SHA-256 must be
//	                              the first word of SHAFILE (sha256sum's)
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

func serve(port, file string) error {
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, file)
	})
	return http.ListenAndServe(":"+port, nil)
}

func get(url, shafile string) error {
	want, err := os.ReadFile(shafile)
	if err != nil {
		return err
	}
	fields := strings.Fields(string(want))
	if len(fields) == 0 {
		return fmt.Errorf("%s: empty", shafile)
	}
	for i := 0; i < 3; i++ {
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		h := sha256.New()
		_, err = io.Copy(h, resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != fields[0] {
			return fmt.Errorf("GET %s: sha256 %s, want %s", url, got, fields[0])
		}
	}
	return nil
}

func main() {
	var err error

	switch {
	case len(os.Args) == 4 && os.Args[1] == "serve":
		err = serve(os.Args[2], os.Args[3])
	case len(os.Args) == 4 && os.Args[1] == "get":
		err = get(os.Args[2], os.Args[3])
	default:
		fmt.Fprintln(os.Stderr, "usage: exs_gohttp serve PORT FILE | get URL SHAFILE")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "exs_gohttp:", err)
		os.Exit(1)
	}
}
