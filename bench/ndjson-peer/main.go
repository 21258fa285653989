// ndjson-peer: the playback/1 rules over an NDJSON log (shared/spec/streaming.md,
// playback.md), written as a Go service would be with the standard library only:
// bufio.Scanner for lines, encoding/json into a struct per line. It is the peer that
// bench/ndjson-stream.sh measures DeviceOracle's NDJSON form against, and its summary
// (stepCount, mismatchCount, diagnosticCount, final, verdict) is a cross-check of the
// service's.
//
//	ndjson-peer check [-steps all|failing|none] [FILE|-]   answer on stdout
//	ndjson-peer serve [-addr 127.0.0.1:0]                  POST /playback/apply
//
// Over HTTP only steps=none is served: Go 1.19's HTTP/1 server cannot write an answer
// while it still reads the request (it discards the rest of the body), so streamed
// steps would need the whole answer buffered.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
)

const (
	maxLineBytes = 1 << 20 // the service's default --max-line-bytes
	maxListed    = 10000   // mismatches and diagnostics listed in the summary
)

type state struct {
	IsPlaying               bool `json:"isPlaying"`
	ResumeAfterInterruption bool `json:"resumeAfterInterruption"`
}

type observed struct {
	IsPlaying               *bool   `json:"isPlaying"`
	ResumeAfterInterruption *bool   `json:"resumeAfterInterruption"`
	Action                  *string `json:"action"`
}

// line is any line of the log: the head, an event (canonical or raw) or the tail.
type line struct {
	Ruleset       *string         `json:"ruleset"`
	Initial       *observed       `json:"initial"`
	ObservedFinal *observed       `json:"observedFinal"`
	Type          *string         `json:"type"`
	ShouldResume  *bool           `json:"shouldResume"`
	Reason        json.RawMessage `json:"reason"`
	Notification  *string         `json:"notification"`
	UserInfo      *userInfo       `json:"userInfo"`
	Session       *string         `json:"session"`
	ID            *string         `json:"id"`
	At            *float64        `json:"at"`
	Observed      *observed       `json:"observed"`
}

type userInfo struct {
	InterruptionType   json.RawMessage `json:"AVAudioSessionInterruptionTypeKey"`
	InterruptionOption json.RawMessage `json:"AVAudioSessionInterruptionOptionKey"`
	RouteChangeReason  json.RawMessage `json:"AVAudioSessionRouteChangeReasonKey"`
}

// event is the canonical event a step shows; nil when nothing reached the rules.
type event struct {
	Type         string `json:"type"`
	ShouldResume *bool  `json:"shouldResume,omitempty"`
	Reason       any    `json:"reason,omitempty"`
}

type mismatch struct {
	Index    *int   `json:"index"`
	Field    string `json:"field"`
	Expected any    `json:"expected"`
	Observed any    `json:"observed"`
}

type diagnostic struct {
	Index    int    `json:"index"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
}

type step struct {
	Index       int          `json:"index"`
	ID          *string      `json:"id,omitempty"`
	Session     *string      `json:"session,omitempty"`
	Event       *event       `json:"event"`
	Before      state        `json:"before"`
	After       state        `json:"after"`
	Action      string       `json:"action"`
	Mismatches  []mismatch   `json:"mismatches,omitempty"`
	Diagnostics []diagnostic `json:"diagnostics,omitempty"`
}

type summary struct {
	Ruleset         string           `json:"ruleset"`
	Final           state            `json:"final"`
	Sessions        map[string]state `json:"sessions,omitempty"`
	Verdict         string           `json:"verdict"`
	Mismatches      []mismatch       `json:"mismatches"`
	Diagnostics     []diagnostic     `json:"diagnostics"`
	StepCount       int              `json:"stepCount"`
	MismatchCount   int              `json:"mismatchCount"`
	DiagnosticCount int              `json:"diagnosticCount"`
}

var reasonNames = map[int]string{0: "unknown", 1: "newDeviceAvailable", 2: "oldDeviceUnavailable",
	3: "categoryChange", 4: "override", 6: "wakeFromSleep", 7: "noSuitableRouteForCategory",
	8: "routeConfigurationChange"}

// session is one playback session's state, and whether an interruption is open.
type session struct {
	state
	open bool
}

// checker applies the rules line by line and writes step lines per `steps`.
type checker struct {
	steps         string
	out           *bufio.Writer
	sessions      map[string]*session
	order         []string
	named         bool // some event named a session
	carried       bool // some observed or observedFinal
	initial       state
	lastAt        *float64
	stepCount     int
	summary       summary
	observedFinal *observed
	lineNumber    int
}

func newChecker(steps string, out io.Writer) *checker {
	return &checker{steps: steps, out: bufio.NewWriterSize(out, 1<<16), sessions: map[string]*session{},
		summary: summary{Ruleset: "playback/1", Mismatches: []mismatch{}, Diagnostics: []diagnostic{}}}
}

// run reads the whole log; an error is a problem of line c.lineNumber.
func (c *checker) run(r io.Reader) error {
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 1<<16), maxLineBytes+1)
	first := true
	for scanner.Scan() {
		c.lineNumber++
		text := bytes.TrimRight(scanner.Bytes(), "\r")
		if len(bytes.Trim(text, " \t\r")) == 0 {
			continue
		}
		if c.observedFinal != nil {
			return errors.New("an element after the observedFinal tail")
		}
		var l line
		if err := json.Unmarshal(text, &l); err != nil {
			return err
		}
		if first && l.Type == nil && l.Notification == nil && isHead(text) {
			first = false
			if l.Initial != nil {
				c.initial = stateFrom(l.Initial)
			}
			c.observedFinal = l.ObservedFinal
			continue
		}
		first = false
		if l.Type == nil && l.Notification == nil && l.ObservedFinal != nil {
			c.observedFinal = l.ObservedFinal // the tail, if nothing follows
			continue
		}
		if err := c.apply(&l); err != nil {
			return err
		}
	}
	if err := scanner.Err(); err != nil {
		return err
	}
	return c.end()
}

// isHead: every member is a head member of playback's body.
func isHead(text []byte) bool {
	var members map[string]json.RawMessage
	if json.Unmarshal(text, &members) != nil {
		return false
	}
	for name := range members {
		if name != "ruleset" && name != "initial" && name != "observedFinal" {
			return false
		}
	}
	return true
}

func stateFrom(o *observed) state {
	s := state{}
	if o.IsPlaying != nil {
		s.IsPlaying = *o.IsPlaying
	}
	if o.ResumeAfterInterruption != nil {
		s.ResumeAfterInterruption = *o.ResumeAfterInterruption
	}
	return s
}

// translate gives the canonical event and the diagnostic codes of a line.
func translate(l *line) (*event, []diagnostic, error) {
	var diags []diagnostic
	warn := func(code string) { diags = append(diags, diagnostic{Severity: "warning", Code: code}) }
	if l.Type != nil && l.Notification != nil {
		return nil, nil, errors.New("an event with both type and notification")
	}
	if l.Type != nil {
		switch *l.Type {
		case "interruptionBegan", "userPaused", "outputDisconnected", "userPlayed":
			return &event{Type: *l.Type}, nil, nil
		case "interruptionEnded":
			if l.ShouldResume == nil {
				return nil, nil, errors.New("interruptionEnded without shouldResume")
			}
			return &event{Type: *l.Type, ShouldResume: l.ShouldResume}, nil, nil
		case "routeChanged":
			if l.Reason == nil {
				return nil, nil, errors.New("routeChanged without reason")
			}
			return routeChanged(l.Reason)
		}
		return nil, nil, fmt.Errorf("unknown event type %q", *l.Type)
	}
	if l.Notification == nil {
		return nil, nil, errors.New("an event with neither type nor notification")
	}
	info := l.UserInfo
	if info == nil {
		info = &userInfo{}
	}
	switch *l.Notification {
	case "AVAudioSessionInterruptionNotification", "AVAudioSession.interruptionNotification", "interruption":
		switch string(info.InterruptionType) {
		case "1", `"began"`:
			return &event{Type: "interruptionBegan"}, nil, nil
		case "0", `"ended"`:
			resume := false
			if len(info.InterruptionOption) == 0 || string(info.InterruptionOption) == "null" {
				warn("missingInterruptionOptions")
			} else {
				resume = shouldResumeBit(info.InterruptionOption)
			}
			return &event{Type: "interruptionEnded", ShouldResume: &resume}, diags, nil
		}
		warn("unknownInterruptionType")
		return nil, diags, nil
	case "AVAudioSessionRouteChangeNotification", "AVAudioSession.routeChangeNotification", "routeChange":
		if len(info.RouteChangeReason) == 0 || string(info.RouteChangeReason) == "null" {
			warn("unknownRouteChangeReason")
			return nil, diags, nil
		}
		return routeChanged(info.RouteChangeReason)
	}
	warn("unknownNotification")
	return nil, diags, nil
}

// routeChanged: a known reason by its name (only oldDeviceUnavailable acts), an
// unknown one as given, with a warning.
func routeChanged(raw json.RawMessage) (*event, []diagnostic, error) {
	reason, known := routeReason(raw)
	if !known {
		return &event{Type: "routeChanged", Reason: reason}, []diagnostic{{Severity: "warning", Code: "unknownRouteChangeReason"}}, nil
	}
	if reason != "oldDeviceUnavailable" {
		return &event{Type: "routeChanged", Reason: reason}, []diagnostic{{Severity: "info", Code: "routeChangeIgnored"}}, nil
	}
	return &event{Type: "routeChanged", Reason: reason}, nil, nil
}

func routeReason(raw json.RawMessage) (any, bool) {
	var v any
	_ = json.Unmarshal(raw, &v)
	switch r := v.(type) {
	case float64:
		if name, ok := reasonNames[int(r)]; ok && r == math.Trunc(r) {
			return name, true
		}
	case string:
		for _, name := range reasonNames {
			if name == r {
				return name, true
			}
		}
	}
	return v, false
}

func shouldResumeBit(raw json.RawMessage) bool {
	var v any
	_ = json.Unmarshal(raw, &v)
	switch o := v.(type) {
	case float64:
		return o == math.Trunc(o) && int64(o)&1 == 1
	case string:
		return o == "shouldResume"
	case []any:
		for _, e := range o {
			if s, ok := e.(string); ok && s == "shouldResume" {
				return true
			}
		}
	}
	return false
}

func (c *checker) session(name string) *session {
	s, ok := c.sessions[name]
	if !ok {
		s = &session{state: c.initial}
		c.sessions[name] = s
		c.order = append(c.order, name)
	}
	return s
}

func (c *checker) apply(l *line) error {
	index := c.stepCount
	c.stepCount++
	e, diags, err := translate(l)
	if err != nil {
		return err
	}
	name := "default"
	if l.Session != nil {
		name, c.named = *l.Session, true
	}
	s := c.session(name)
	before := s.state
	if e != nil {
		switch e.Type {
		case "interruptionBegan":
			s.state, s.open = state{false, before.IsPlaying}, true
		case "interruptionEnded":
			if !s.open {
				diags = append(diags, diagnostic{Severity: "info", Code: "endWithoutBegin"})
			}
			s.state, s.open = state{before.ResumeAfterInterruption && *e.ShouldResume, false}, false
		case "userPaused", "outputDisconnected":
			s.state = state{}
		case "userPlayed":
			s.state = state{IsPlaying: true}
		case "routeChanged":
			if e.Reason == "oldDeviceUnavailable" {
				s.state = state{}
			}
		}
	}
	if l.At != nil {
		if c.lastAt != nil && *l.At < *c.lastAt {
			diags = append(diags, diagnostic{Severity: "warning", Code: "outOfOrder"})
		}
	}
	c.lastAt = l.At
	action := "none"
	if !before.IsPlaying && s.IsPlaying {
		action = "play"
	} else if before.IsPlaying && !s.IsPlaying {
		action = "pause"
	}
	var mismatches []mismatch
	if o := l.Observed; o != nil {
		c.carried = true
		mismatches = compare(&index, "", o, s.state, &action)
	}
	for i := range diags {
		diags[i].Index = index
	}
	c.record(mismatches, diags)
	if c.steps == "all" || (c.steps == "failing" && len(mismatches)+len(diags) > 0) {
		st := step{Index: index, ID: l.ID, Session: l.Session, Event: e, Before: before, After: s.state,
			Action: action, Mismatches: mismatches, Diagnostics: diags}
		return c.writeLine(st)
	}
	return nil
}

func compare(index *int, prefix string, o *observed, s state, action *string) []mismatch {
	var out []mismatch
	if o.IsPlaying != nil && *o.IsPlaying != s.IsPlaying {
		out = append(out, mismatch{index, prefix + "isPlaying", s.IsPlaying, *o.IsPlaying})
	}
	if o.ResumeAfterInterruption != nil && *o.ResumeAfterInterruption != s.ResumeAfterInterruption {
		out = append(out, mismatch{index, prefix + "resumeAfterInterruption", s.ResumeAfterInterruption, *o.ResumeAfterInterruption})
	}
	if action != nil && o.Action != nil && *o.Action != *action {
		out = append(out, mismatch{index, prefix + "action", *action, *o.Action})
	}
	return out
}

func (c *checker) record(mismatches []mismatch, diags []diagnostic) {
	c.summary.MismatchCount += len(mismatches)
	c.summary.DiagnosticCount += len(diags)
	for _, m := range mismatches {
		if len(c.summary.Mismatches) < maxListed {
			c.summary.Mismatches = append(c.summary.Mismatches, m)
		}
	}
	for _, d := range diags {
		if len(c.summary.Diagnostics) < maxListed {
			c.summary.Diagnostics = append(c.summary.Diagnostics, d)
		}
	}
}

func (c *checker) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.out.Write(b)
	return c.out.WriteByte('\n')
}

// end writes the summary line.
func (c *checker) end() error {
	final := c.initial
	if s, ok := c.sessions["default"]; ok {
		final = s.state
	}
	if o := c.observedFinal; o != nil {
		c.carried = true
		c.record(compare(nil, "final.", o, final, nil), nil)
	}
	c.summary.Final = final
	c.summary.StepCount = c.stepCount
	if c.named {
		c.summary.Sessions = map[string]state{}
		for _, name := range c.order {
			c.summary.Sessions[name] = c.sessions[name].state
		}
	}
	switch {
	case c.summary.MismatchCount > 0:
		c.summary.Verdict = "fail"
	case c.carried:
		c.summary.Verdict = "pass"
	default:
		c.summary.Verdict = "unchecked"
	}
	if err := c.writeLine(c.summary); err != nil {
		return err
	}
	return c.out.Flush()
}

func (c *checker) problem(err error) {
	c.writeLine(map[string]any{"problem": map[string]any{"line": c.lineNumber, "detail": err.Error()}})
	c.out.Flush()
}

func check(args []string) {
	flags := flag.NewFlagSet("check", flag.ExitOnError)
	steps := flags.String("steps", "all", "all, failing or none")
	flags.Parse(args)
	in := io.Reader(os.Stdin)
	if path := flags.Arg(0); path != "" && path != "-" {
		f, err := os.Open(path)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		in = f
	}
	c := newChecker(*steps, os.Stdout)
	if err := c.run(in); err != nil {
		c.problem(err)
		os.Exit(2)
	}
	if c.summary.Verdict == "fail" {
		os.Exit(1)
	}
}

func serve(args []string) {
	flags := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := flags.String("addr", "127.0.0.1:0", "listen address")
	flags.Parse(args)
	http.HandleFunc("/playback/apply", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "use POST", http.StatusMethodNotAllowed)
			return
		}
		if steps := r.URL.Query().Get("steps"); steps != "none" {
			http.Error(w, "this peer serves only steps=none over HTTP", http.StatusBadRequest)
			return
		}
		// Nothing is written before the body has been read to its end.
		var answer bytes.Buffer
		c := newChecker("none", &answer)
		verdict := "invalid"
		if err := c.run(r.Body); err != nil {
			c.problem(err)
		} else {
			verdict = c.summary.Verdict
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.Header().Set("Oracle-Verdict", verdict)
		w.Write(answer.Bytes())
	})
	listener, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening %d\n", listener.Addr().(*net.TCPAddr).Port)
	log.Fatal(http.Serve(listener, nil))
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: ndjson-peer check [-steps all|failing|none] [FILE|-] | serve [-addr HOST:PORT]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "check":
		check(os.Args[2:])
	case "serve":
		serve(os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, "unknown command", os.Args[1])
		os.Exit(2)
	}
}
