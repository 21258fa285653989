#!/usr/bin/env python3
"""The trace viewer (GET /) in a real browser: headless Chromium driven by Playwright.

Starts the built binary on a free port, loads the page, and checks from the DOM what
a person would see: a failing playback trace (verdict, the highlighted mismatch, the
lane values, the first divergence in view, the path on the diagram, the repro beside it), a 422 as a list
of pointers into the body, a 1,000-step log rendered lazily, keyboard moves between
steps, a share link that reopens the same trace, a link that inflates past 8 MiB
refused with a message, an injected inline handler that never runs, and that nothing but this service is
ever contacted. A dropped file is read, its ruleset guessed and run. NDJSON (streaming.md): a pasted log
draws the same trace as its JSON form, its problems point into their line, and a 1,000,000-event file
opened with the file input is run with ?steps=failing, kept out of the text box, and shown within a
bound while the page stays responsive. Waits on DOM conditions, never on sleeps.

    python3 Tests/browser/viewer_e2e.py [--binary PATH] [--screenshot PATH]

Needs Playwright (pip) and Chromium (Debian: apt-get install chromium); .ci/run
installs both. Prints one line per check and "N passed, N failed" last; exits 1 on
any failure.
"""

import argparse
import base64
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
import zlib

from playwright.sync_api import expect, sync_playwright

# Example positions in the page's Example list.
FAILING_PLAYBACK, PASSING_PLAYBACK, TYPOS, LONG_LOG, FAILING_REFRESH = 0, 1, 3, 4, 6
TIMEOUT_MS = 20_000  # per wait; a shared 2-core machine can be slow, never this slow
SOAK_EVENTS = 1_000_000
SOAK_BOUND_S = 60  # from choosing the file to the verdict on screen, on a 2-core machine
RESPONSIVE_S = 1.0  # a click on a step, once the answer is shown


def start_server(binary):
    """The binary on port 0; the port from its startup line."""
    server = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--log-level", "info"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line:
            break
        match = re.search(r'"msg":"listening".*"port":(\d+)', line)
        if match:
            return server, int(match.group(1))
    server.kill()
    raise RuntimeError("the server printed no startup line")


def run_example(page, index):
    page.select_option("#example", str(index))


def wait_for_answer(page, verdict):
    expect(page.locator("#verdict")).to_have_attribute("data-verdict", verdict, timeout=TIMEOUT_MS)
    expect(page.locator("#run")).to_be_enabled(timeout=TIMEOUT_MS)


def lane(page, name, steps):
    """The canonical values of one lane, parsed, for the given step columns."""
    return [json.loads(page.locator(f'.cell[data-lane="{name}"][data-step="{step}"]').get_attribute("data-value"))
            for step in steps]


def check_failing_playback_trace(page, base, screenshot):
    run_example(page, FAILING_PLAYBACK)
    wait_for_answer(page, "fail")

    expect(page.locator("#verdict")).to_have_text("fail")
    expect(page.locator("#mismatch-list li")).to_have_count(2)
    # The divergence: step 3 (headphones unplugged), where the device kept playing.
    mismatches = page.locator(".cell.mismatch")
    expect(mismatches).to_have_count(2)
    playing = page.locator('.cell.mismatch[data-step="3"][data-lane="isPlaying"]')
    expect(playing).to_have_attribute("data-value", "false")
    expect(playing).to_have_attribute("data-observed", "true")
    expect(playing).to_contain_text("obs true")
    action = page.locator('.cell.mismatch[data-step="3"][data-lane="action"]')
    expect(action).to_have_attribute("data-value", '"pause"')
    expect(action).to_have_attribute("data-observed", '"none"')
    # Every lane, every step: the canonical values after each event.
    steps = range(5)
    assert lane(page, "isPlaying", steps) == [True, False, True, False, False], lane(page, "isPlaying", steps)
    assert lane(page, "resumeAfterInterruption", steps) == [False, True, False, False, False]
    assert lane(page, "action", steps) == ["play", "pause", "play", "pause", "none"]
    assert lane(page, "isPlaying", ["final"]) == [False]
    # Observed values that agree are marked, not highlighted.
    expect(page.locator('.cell.ok[data-step="1"][data-lane="action"]')).to_contain_text("obs pause")
    # The raw notification beside the canonical event it became.
    expect(page.locator('.col[data-col="3"] .cell.raw')).to_contain_text("RouteChange")
    expect(page.locator('.col[data-col="3"] .cell.event')).to_contain_text("routeChanged")
    # The first divergence is selected and scrolled into the timeline's view.
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "3")
    inside = page.evaluate("""() => {
        const column = document.querySelector('.col.selected').getBoundingClientRect();
        const view = document.getElementById('tl-scroll').getBoundingClientRect();
        return column.left >= view.left - 1 && column.right <= view.right + 1;
    }""")
    assert inside, "the first divergence is not in the timeline's view"
    expect(page.locator("#step-title")).to_have_text("Event 3 — line-88")
    # The diagram: the path this log took (5 of playback's 8 edges), step 3's edge marked.
    expect(page.locator("#diagram .edge.taken")).to_have_count(5, timeout=TIMEOUT_MS)
    current = page.locator("#diagram .edge.current")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("data-from", "s1")
    expect(current).to_have_attribute("data-to", "s0")
    if screenshot:
        os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
        # The page from the top down to the diagram, as a 1280-wide window shows it.
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=screenshot, full_page=True, clip={"x": 0, "y": 0, "width": 1280, "height": 1040})


def check_repro_beside_the_divergence(page, base, screenshot):
    # Nothing to reproduce for a passing log.
    run_example(page, PASSING_PLAYBACK)
    wait_for_answer(page, "pass")
    expect(page.locator("#repro")).to_have_attribute("data-state", "none")  # asked and answered, or never asked
    expect(page.locator("#repro")).to_be_hidden()
    # Refresh's repro, from the store its diverging run saw, fails the same way.
    run_example(page, FAILING_REFRESH)
    wait_for_answer(page, "fail")
    expect(page.locator("#repro")).to_have_attribute("data-state", "shown")
    request = json.loads(page.locator("#repro-request").inner_text())
    assert_reproduces(page, base + "/refresh/run", request, "runs")
    # The failing example diverges at event 3 of 5; its repro is shorter and, posted
    # to the ruleset endpoint, fails at its own last step on the same field. (It is
    # the trace the next check starts from.)
    run_example(page, FAILING_PLAYBACK)
    wait_for_answer(page, "fail")
    expect(page.locator("#repro")).to_have_attribute("data-state", "shown")
    expect(page.locator("#repro")).to_be_visible()
    summary = page.locator("#repro-summary").inner_text()
    assert re.match(r"Reproduce in \d+ steps? \(the log took 4 to the divergence at event 3\)", summary), summary
    request = json.loads(page.locator("#repro-request").inner_text())
    answer = assert_reproduces(page, base + "/playback/apply", request, "events")
    assert answer["mismatches"][0]["field"] == "isPlaying", answer
    page.locator("#repro-copy").click()
    expect(page.locator("#repro-status")).to_have_text(re.compile(r"Copied to the clipboard\.|Selected: copy it with Ctrl\+C\."))


def assert_reproduces(page, url, request, sequence):
    """The repro's request, posted to its ruleset endpoint, fails at its last step."""
    answer = page.request.post(url, data=json.dumps(request), headers={"Content-Type": "application/json"}).json()
    assert answer["verdict"] == "fail", answer
    assert answer["mismatches"][0]["index"] in (len(request[sequence]) - 1, None), answer
    return answer


def check_keyboard_moves_between_steps(page, base, screenshot):
    # The selected step's button is the one tab stop of the step row.
    expect(page.locator(".step-btn[tabindex='0']")).to_have_count(1)
    page.locator(".col.selected .step-btn").focus()
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "2")
    page.keyboard.press("End")
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "5")  # the final state
    assert page.evaluate("document.activeElement.closest('.col').dataset.col") == "5"
    page.keyboard.press("Home")
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "0")
    page.get_by_role("button", name="Next step with a mismatch").click()
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "3")
    # A mismatch in the list takes the timeline to its step.
    page.locator("#mismatch-list button").first.click()
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "3")


def check_share_link_reopens_the_trace(page, base, screenshot):
    body = page.input_value("#body")
    page.click("#share")
    link = page.locator("#share-link")
    expect(link).to_have_value(re.compile(r"#r=playback/1&z="), timeout=TIMEOUT_MS)
    shared = page.context.new_page()
    shared.goto(link.input_value())
    wait_for_answer(shared, "fail")
    assert shared.input_value("#body") == body
    assert shared.input_value("#ruleset") == "playback/1"
    expect(shared.locator('.cell.mismatch[data-step="3"][data-lane="isPlaying"]')).to_have_count(1)
    shared.close()
    # A link a CI log prints, made without a browser: base64url of the raw-deflated body.
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    deflated = compressor.compress(b'{"events":[{"type":"userPlayed","observed":{"isPlaying":false}}]}') + compressor.flush()
    printed = base64.urlsafe_b64encode(deflated).decode().rstrip("=")
    plain = base64.urlsafe_b64encode(b'{"events":[{"type":"userPlayed","observed":{"isPlaying":true}}]}').decode().rstrip("=")
    for fragment, verdict in [(f"r=playback&z={printed}", "fail"), (f"r=playback/1&b={plain}", "pass")]:
        ci = page.context.new_page()
        ci.goto(f"{base}/#{fragment}")
        wait_for_answer(ci, verdict)
        expect(ci.locator('.cell[data-step="0"][data-lane="isPlaying"]')).to_have_attribute("data-value", "true")
        ci.close()


def check_share_link_bomb_is_refused_with_a_message(page, base, screenshot):
    # 256 MiB of one byte deflate to a link of about 350 KB; the page stops at 8 MiB.
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = b" " * (1 << 20)
    deflated = b"".join(compressor.compress(chunk) for _ in range(256)) + compressor.flush()
    bomb = base64.urlsafe_b64encode(deflated).decode().rstrip("=")
    opened = page.context.new_page()
    try:
        opened.goto(f"{base}/#r=playback/1&z={bomb}")
        expect(opened.locator("#problem-title")).to_have_text("This link is too large to open", timeout=TIMEOUT_MS)
        expect(opened.locator("#problem-detail")).to_contain_text("8 MiB")
        assert len(opened.input_value("#body")) < 1 << 20, "the inflated body reached the page"
        # The tab is alive and still works: an example runs.
        run_example(opened, FAILING_PLAYBACK)
        wait_for_answer(opened, "fail")
    finally:
        opened.close()


def check_an_injected_inline_handler_never_runs(page, base, screenshot):
    # What an HTML injection would add: the policy allows the page's own script by its
    # hash, so the handler is refused while the page keeps working.
    opened = page.context.new_page()
    try:
        opened.goto(f"{base}/")
        expect(opened.locator("html")).to_have_attribute("data-ready", "true")
        opened.evaluate("""() => {
            const holder = document.createElement('div');
            holder.innerHTML = '<img id="injected" src="data:," onerror="document.documentElement.dataset.injected = 1">'
                + '<button id="clicked" onclick="document.documentElement.dataset.injected = 2">x</button>';
            document.body.append(holder);
            document.getElementById('clicked').click();
        }""")
        opened.wait_for_function("document.getElementById('injected').complete")
        assert opened.evaluate("document.documentElement.dataset.injected") is None, "an injected handler ran"
        run_example(opened, FAILING_PLAYBACK)
        wait_for_answer(opened, "fail")
    finally:
        opened.close()


def check_problem_list_points_into_the_body(page, base, screenshot):
    run_example(page, TYPOS)
    problem = page.locator("#problem")
    expect(problem).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.locator("#problem-title")).to_have_text("422 Invalid request")
    pointers = page.locator("#problem-list button[data-pointer]")
    expect(pointers).to_have_count(3)
    assert [pointers.nth(i).get_attribute("data-pointer") for i in range(3)] == \
        ["/events/0/type", "/events/1/shouldResume", "/events/2/observed/isPlayng"]
    expect(page.locator("#problem-list li").first).to_contain_text("did you mean 'userPaused'?")
    pointers.first.click()
    selected = page.evaluate("(() => { const a = document.getElementById('body'); return a.value.slice(a.selectionStart, a.selectionEnd); })()")
    assert selected == '"type": "userPause"', selected
    # Malformed JSON: a 400 naming the line and column.
    page.fill("#body", '{"events":[{"type":"userPaused"},]}')
    page.click("#run")
    expect(page.locator("#problem-title")).to_have_text("400 Invalid JSON", timeout=TIMEOUT_MS)
    expect(page.locator("#problem-list")).to_contain_text("line 1, column 34")


def check_long_log_renders_lazily(page, base, screenshot):
    started = time.monotonic()
    run_example(page, LONG_LOG)
    wait_for_answer(page, "fail")
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "713", timeout=TIMEOUT_MS)
    elapsed = time.monotonic() - started
    columns = page.locator(".col").count()
    assert columns < 40, f"{columns} step columns in the DOM for 1,001"
    assert elapsed < 10, f"1,000 steps took {elapsed:.1f} s to show"
    expect(page.locator('.cell.mismatch[data-step="713"][data-lane="isPlaying"]')).to_have_count(1)
    # Scrolling renders the columns that come into view, and only those.
    page.evaluate("document.getElementById('tl-scroll').scrollLeft = 136 * 990")
    expect(page.locator('.col[data-col="995"]')).to_have_count(1, timeout=TIMEOUT_MS)
    assert page.locator(".col").count() < 40
    page.locator(".col.selected .step-btn").focus()
    page.keyboard.press("End")
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "1000")


def check_ruleset_is_guessed_from_the_body(page, base, screenshot):
    page.select_option("#ruleset", "playback/1")
    page.fill("#body", '{"category":"ambient","events":[{"type":"launched"},{"type":"playSound","name":"coin"}]}')
    page.locator("#body").blur()  # a change event, as after typing or pasting
    expect(page.locator("#ruleset")).to_have_value("audio-session/1")
    page.click("#run")
    wait_for_answer(page, "unchecked")
    # Lanes come from the answer: audio-session's six state fields and its decision fields.
    for name in ["foreground", "active", "interrupted", "categorySet", "observing", "deactivationPending", "actions", "soundPlayed"]:
        expect(page.locator(f'.lane-label:has-text("{name}")')).to_have_count(1)
    assert lane(page, "actions", [0]) == [["setCategory", "addObservers", "activate"]]


def check_dropped_file_is_read_guessed_and_run(page, base, screenshot):
    page.select_option("#ruleset", "playback/1")
    body = '{"events":[{"type":"saveTapped"},{"type":"saveSucceeded","observed":{"haptic":"none"}}]}'
    # What a drag from the file manager delivers: a File in the drop's DataTransfer.
    page.evaluate("""(body) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([body], 'device-log.json', { type: 'application/json' }));
        document.getElementById('drop').dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    }""", body)
    wait_for_answer(page, "fail")
    expect(page.locator("#ruleset")).to_have_value("haptics/1")
    assert page.input_value("#body") == body
    haptic = page.locator('.cell.mismatch[data-step="1"][data-lane="haptic"]')
    expect(haptic).to_have_attribute("data-value", '"play"')
    assert lane(page, "actions", [0, 1]) == [["startSave"], ["startEngine", "playHaptic"]]


def trace_cells(page):
    """Every value cell of the timeline as a person reads it: step, lane, value, observed, mismatch."""
    return page.eval_on_selector_all(".cell[data-lane]", """cells => cells.map(cell => [
        cell.dataset.step, cell.dataset.lane, cell.dataset.value ?? null, cell.dataset.observed ?? null,
        cell.classList.contains('mismatch')]).sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)""")


def shown_trace(page):
    return {
        "verdict": page.locator("#verdict").get_attribute("data-verdict"),
        "mismatches": page.locator("#mismatch-list li").all_inner_texts(),
        "diagnostics": page.locator("#diagnostic-list li").all_inner_texts(),
        "chips": page.locator("#summary .chip").all_inner_texts(),
        "lanes": page.locator(".lane-label").all_inner_texts(),
        "cells": trace_cells(page),
    }


def as_ndjson(body, sequence="events"):
    """The JSON form's body as NDJSON: a head line, a line per element, an observedFinal line."""
    head = {key: value for key, value in body.items() if key not in (sequence, "observedFinal")}
    lines = [json.dumps(head)] + [json.dumps(item) for item in body[sequence]]
    if "observedFinal" in body:
        lines.append(json.dumps({"observedFinal": body["observedFinal"]}))
    return "\n".join(lines) + "\n"


def check_pasted_ndjson_draws_the_same_trace_as_json(page, base, screenshot):
    # The failing playback example (JSON form) first: what the NDJSON form must match.
    run_example(page, FAILING_PLAYBACK)
    wait_for_answer(page, "fail")
    expect(page.locator("#diagram .edge.taken")).to_have_count(5, timeout=TIMEOUT_MS)
    expected = shown_trace(page)
    body = json.loads(page.input_value("#body"))
    ndjson = as_ndjson(body)
    # Pasted into the box, with another ruleset selected: the form is told, the ruleset guessed.
    page.select_option("#ruleset", "haptics/1")
    page.fill("#body", ndjson)
    page.locator("#body").dispatch_event("paste")
    expect(page.locator("#ruleset")).to_have_value("playback/1")
    expect(page.locator("#body-form")).to_have_attribute("data-form", "ndjson")
    expect(page.locator("#body-form")).to_contain_text("a head line, 5 event lines, an observedFinal line")
    with page.expect_request(lambda request: request.method == "POST" and "/playback/apply" in request.url) as posted:
        page.click("#run")
    request = posted.value
    assert request.headers["content-type"] == "application/x-ndjson", request.headers
    assert request.url.endswith("/playback/apply?steps=all"), request.url
    wait_for_answer(page, "fail")
    expect(page.locator("#steps-used")).to_have_attribute("data-steps", "all")
    expect(page.locator("#facts")).to_contain_text("as NDJSON")
    # The path on the diagram too: the page writes the log in the JSON form for /coverage.
    expect(page.locator("#diagram .edge.taken")).to_have_count(5, timeout=TIMEOUT_MS)
    shown = shown_trace(page)
    for part in expected:
        assert shown[part] == expected[part], (part, shown[part], expected[part])
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "3")
    expect(page.locator("#step-detail")).to_contain_text("event, as logged (line 5)")
    # ?steps=failing by choice: only step 3 has a column, and its cells are the same.
    page.select_option("#steps", "failing")
    page.click("#run")
    expect(page.locator("#steps-used")).to_have_attribute("data-steps", "failing", timeout=TIMEOUT_MS)
    wait_for_answer(page, "fail")
    expect(page.locator("#steps-used")).to_have_attribute("data-listed", "1")
    expect(page.locator(".col")).to_have_count(2)  # step 3 and the final state
    expect(page.locator('.col[data-col="0"] .step-btn .n')).to_have_text("#3")
    step3 = [cell for cell in expected["cells"] if cell[0] in ("3", "final")]
    assert trace_cells(page) == step3, (trace_cells(page), step3)
    # A share link carries the NDJSON body and the choice of steps; it reopens the same trace.
    page.click("#share")
    link = page.locator("#share-link")
    expect(link).to_have_value(re.compile(r"#r=playback/1&z=.*&s=failing$"), timeout=TIMEOUT_MS)
    shared = page.context.new_page()
    try:
        shared.goto(link.input_value())
        wait_for_answer(shared, "fail")
        assert shared.input_value("#body") == ndjson
        expect(shared.locator("#steps-used")).to_have_attribute("data-steps", "failing")
        assert trace_cells(shared) == step3
    finally:
        shared.close()
    page.select_option("#steps", "auto")


def check_pasted_unified_log_capture_is_sent_from_oslog(page, base, screenshot):
    # oslog.md: a pasted `log stream --style ndjson` capture is recognised by its records'
    # eventType, its ruleset guessed from the app's messages, and posted as it is with ?from=oslog.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "oslog", "playback.ndjson")
    with open(path, encoding="utf-8") as capture:
        text = capture.read()
    page.select_option("#ruleset", "haptics/1")
    page.fill("#body", text)
    page.locator("#body").dispatch_event("paste")
    expect(page.locator("#ruleset")).to_have_value("playback/1")
    expect(page.locator("#body-form")).to_have_attribute("data-form", "oslog")
    with page.expect_request(lambda request: request.method == "POST" and "/playback/apply" in request.url) as posted:
        page.click("#run")
    request = posted.value
    assert request.headers["content-type"] == "application/x-ndjson", request.headers
    assert "from=oslog" in request.url, request.url
    wait_for_answer(page, "pass")


def run_after_editing(page):
    """Runs the body just filled in as a person would after editing it: the text box's
    `change` (which describes the body and may guess its ruleset, moving what is below
    it) has happened before the click, not between its mouse down and up."""
    page.locator("#body").dispatch_event("change")
    page.click("#run")


def check_ndjson_problems_point_into_their_line(page, base, screenshot):
    page.select_option("#ruleset", "playback/1")
    # A bad element line: the answer has begun, so the problem is its last line.
    body = '{"initial":{"isPlaying":true}}\n{"type":"userPlayed"}\n\n{"type":"userPause"}\n{"type":"userPlayed"}\n'
    page.fill("#body", body)
    run_after_editing(page)
    expect(page.locator("#problem-title")).to_have_text("422 Invalid request", timeout=TIMEOUT_MS)
    expect(page.locator("#problem-detail")).to_contain_text("stopped at line 4")
    pointer = page.locator("#problem-list button[data-pointer]")
    expect(pointer).to_have_count(1)
    expect(pointer).to_have_attribute("data-line", "4")
    expect(pointer).to_have_attribute("data-pointer", "/type")
    expect(page.locator("#problem-list li")).to_contain_text("did you mean 'userPaused'?")
    pointer.click()
    selected = page.evaluate("(() => { const a = document.getElementById('body'); return [a.value.slice(a.selectionStart, a.selectionEnd), a.selectionStart]; })()")
    assert selected == ['"type":"userPause"', body.index('{"type":"userPause"') + 1], selected
    # Malformed JSON in a line: its column is within the line.
    page.fill("#body", '{"type":"userPlayed"}\n{"type":"userPaused",}\n')
    run_after_editing(page)
    expect(page.locator("#problem-title")).to_have_text("400 Invalid JSON", timeout=TIMEOUT_MS)
    expect(page.locator("#problem-list")).to_contain_text("line 2, column 22")
    page.locator("#problem-list button[data-offset]").click()
    at = page.evaluate("document.getElementById('body').selectionStart")
    assert at == len('{"type":"userPlayed"}\n') + 21, at
    # A bad head: the ordinary 422, before any answer, pointing into line 1.
    page.fill("#body", '{"initial":{"isPlayng":true}}\n{"type":"userPlayed"}\n')
    run_after_editing(page)
    expect(page.locator("#problem-title")).to_have_text("422 Invalid request", timeout=TIMEOUT_MS)
    pointer = page.locator("#problem-list button[data-pointer]")
    expect(pointer).to_have_attribute("data-line", "1")
    pointer.click()
    selected = page.evaluate("(() => { const a = document.getElementById('body'); return a.value.slice(a.selectionStart, a.selectionEnd); })()")
    assert selected == '"isPlayng":true', selected


def write_soak_log(path):
    """A 1,000,000-event playback log as NDJSON: a head, the events, an observedFinal line.
    Four steps disagree with the rules (observed isPlaying true after a pause), and two route
    changes the rules ignore carry an info diagnostic; all other steps pass."""
    play = '{"type":"userPlayed","observed":{"isPlaying":true,"action":"play"}}'
    began = ('{"notification":"AVAudioSessionInterruptionNotification","userInfo":{"AVAudioSessionInterruptionTypeKey":1},'
             '"observed":{"isPlaying":false}}')
    ended = '{"type":"interruptionEnded","shouldResume":true,"observed":{"isPlaying":true}}'
    pause = '{"type":"userPaused","observed":{"isPlaying":false,"action":"pause"}}'
    route = '{"type":"routeChanged","reason":"newDeviceAvailable","observed":{"isPlaying":%s}}'
    lines = [play, began, ended, pause] * (SOAK_EVENTS // 4)
    mismatching = [3, 123_455, 500_003, 999_999]
    for index in mismatching:
        lines[index] = '{"type":"userPaused","observed":{"isPlaying":true,"action":"pause"}}'
    lines[700_000:700_004] = [play, route % "true", pause, route % "false"]
    with open(path, "w") as out:
        out.write('{"initial":{"isPlaying":false}}\n')
        out.write("\n".join(lines))
        out.write('\n{"observedFinal":{"isPlaying":false}}\n')
    return mismatching, [700_001, 700_003]


def check_million_event_ndjson_file_stays_responsive(page, base, screenshot):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "soak.ndjson")
        mismatching, diagnosed = write_soak_log(path)
        size = os.path.getsize(path)
        page.select_option("#steps", "auto")
        page.select_option("#ruleset", "haptics/1")  # guessed from the file's first lines
        started = time.monotonic()
        page.set_input_files("#file", path)
        # While the log is sent and checked, the page answers: the longest a script call waited.
        slowest = 0.0
        answered = """() => !document.getElementById('answer').hidden && !document.getElementById('run').disabled
            && document.getElementById('verdict').dataset.verdict === 'fail'
            && (document.getElementById('steps-used') || {}).dataset?.steps === 'failing'"""
        while True:
            asked = time.monotonic()
            done = page.evaluate(f"new Promise(resolve => setTimeout(() => resolve(({answered})()), 0))")
            slowest = max(slowest, time.monotonic() - asked)
            if done:
                break
            assert time.monotonic() - started < SOAK_BOUND_S, f"no verdict {SOAK_BOUND_S} s after the file was chosen"
            time.sleep(0.1)
        shown = time.monotonic() - started
    expect(page.locator("#ruleset")).to_have_value("playback/1")
    # The file is kept out of the text box; a note stands in its place; no share link.
    expect(page.locator("#file-note-text")).to_have_text(f"soak.ndjson, 1,000,002 lines, {size / 1e6:.1f} MB — not shown")
    expect(page.locator("#body")).to_be_hidden()
    assert page.input_value("#body") == "", "the file reached the text box"
    # steps=failing, chosen for a log this long: the six failing steps and the final state.
    expect(page.locator("#steps-used")).to_have_attribute("data-steps", "failing")
    expect(page.locator("#steps-used")).to_have_attribute("data-listed", "6")
    expect(page.locator("#facts")).to_contain_text("1,000,000 events")
    listed = sorted(mismatching + diagnosed)
    heads = page.locator(".col .step-btn .n")
    expect(heads).to_have_count(7)
    assert sorted(page.locator(".col").evaluate_all("cols => cols.map(c => Number(c.dataset.col))")) == list(range(7))
    for col, index in enumerate(listed):
        expect(page.locator(f'.col[data-col="{col}"] .step-btn .n')).to_have_text(f"#{index}")
    # Mismatches and diagnostics land on their own step's column, however sparse.
    for index in mismatching:
        cell = page.locator(f'.cell.mismatch[data-step="{index}"][data-lane="isPlaying"]')
        expect(cell).to_have_attribute("data-observed", "true")
        expect(cell).to_have_attribute("data-value", "false")
        assert cell.evaluate("c => c.closest('.col').dataset.col") == str(listed.index(index))
    expect(page.locator(".cell.mismatch")).to_have_count(len(mismatching))
    for index in diagnosed:
        expect(page.locator(f'.col[data-col="{listed.index(index)}"] .marker.m-info')).to_have_count(1)
    expect(page.locator("#mismatch-list li")).to_have_count(4)
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "0")
    # Responsive once shown: a click on a step, and a mismatch in the list, answer at once.
    took = page.evaluate("""async () => {
        const started = performance.now();
        document.querySelector('.col[data-col="3"] .step-btn').click();
        await new Promise(resolve => requestAnimationFrame(() => setTimeout(resolve, 0)));
        return [performance.now() - started, document.getElementById('step-title').textContent];
    }""")
    assert took[1] == "Event 700001", took
    assert took[0] < RESPONSIVE_S * 1000, f"a click took {took[0]:.0f} ms"
    clicked = time.monotonic()
    page.locator('#mismatch-list button[data-index="500003"]').click()
    expect(page.locator(".col.selected")).to_have_attribute("data-col", "2")
    expect(page.locator("#step-title")).to_have_text("Event 500003")
    expect(page.locator("#step-detail")).to_contain_text("(line 500005)")
    moved = time.monotonic() - clicked
    assert moved < RESPONSIVE_S, f"the mismatch list took {moved:.2f} s to select its step"
    page.click("#share")
    expect(page.locator("#share-status")).to_contain_text("No share link for a body this large")
    print(f"      1,000,000 events ({size / 1e6:.1f} MB): verdict shown after {shown:.1f} s; slowest script call while"
          f" running {slowest * 1000:.0f} ms; a click on a step {took[0]:.0f} ms; a mismatch from the list {moved * 1000:.0f} ms",
          flush=True)
    assert shown < SOAK_BOUND_S
    # Back to a body in the box: the examples run as before.
    page.click("#file-discard")
    expect(page.locator("#body")).to_be_visible()
    run_example(page, FAILING_PLAYBACK)
    wait_for_answer(page, "fail")


def check_narrow_window_scrolls_only_the_timeline(page, base, screenshot):
    page.set_viewport_size({"width": 400, "height": 800})
    try:
        run_example(page, FAILING_PLAYBACK)
        wait_for_answer(page, "fail")
        expect(page.locator(".col.selected")).to_have_attribute("data-col", "3")
        # The page itself never scrolls sideways; the timeline and the diagram do, inside.
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"
        box = page.locator(".col.selected").bounding_box()
        view = page.locator("#tl-scroll").bounding_box()
        assert view["x"] - 1 <= box["x"] and box["x"] + box["width"] <= view["x"] + view["width"] + 1, (box, view)
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})


CHECKS = [
    check_failing_playback_trace,
    check_repro_beside_the_divergence,
    check_keyboard_moves_between_steps,
    check_share_link_reopens_the_trace,
    check_share_link_bomb_is_refused_with_a_message,
    check_an_injected_inline_handler_never_runs,
    check_problem_list_points_into_the_body,
    check_long_log_renders_lazily,
    check_ruleset_is_guessed_from_the_body,
    check_dropped_file_is_read_guessed_and_run,
    check_pasted_ndjson_draws_the_same_trace_as_json,
    check_pasted_unified_log_capture_is_sent_from_oslog,
    check_ndjson_problems_point_into_their_line,
    check_narrow_window_scrolls_only_the_timeline,
    check_million_event_ndjson_file_stays_responsive,
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", help="the device-oracle binary (default: swift build's release binary)")
    parser.add_argument("--screenshot", default=".build/browser/viewer.png", help="where the failing trace's screenshot goes")
    parser.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only the checks whose names contain NAME (repeatable; the first check always runs: the others start from its trace)")
    arguments = parser.parse_args()
    binary = arguments.binary or os.path.join(
        subprocess.run(["swift", "build", "-c", "release", "--show-bin-path"], capture_output=True, text=True, check=True).stdout.strip(),
        "device-oracle")

    started = time.monotonic()
    server, port = start_server(binary)
    base = f"http://127.0.0.1:{port}"
    passed = failed = 0
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=arguments.chromium, args=["--no-sandbox"])
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            expect.set_options(timeout=TIMEOUT_MS)
            foreign, errors = [], []
            context.on("request", lambda request: None if request.url.startswith(base + "/") else foreign.append(request.url))
            context.on("weberror", lambda error: errors.append(str(error.error)))
            page = context.new_page()
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" and "422" not in message.text and "400" not in message.text else None)
            page.goto(base + "/")
            expect(page.locator("html")).to_have_attribute("data-ready", "true")
            chosen = [check for index, check in enumerate(CHECKS)
                      if index == 0 or not arguments.only or any(name in check.__name__ for name in arguments.only)]
            for check in chosen:
                check_started = time.monotonic()
                try:
                    check(page, base, arguments.screenshot)
                    passed += 1
                    print(f"ok    {check.__name__} ({time.monotonic() - check_started:.1f} s)", flush=True)
                except Exception:  # one failing check must not hide the others
                    failed += 1
                    print(f"FAIL  {check.__name__}\n{traceback.format_exc()}", flush=True)
            # Nothing leaves the browser but requests to the service itself, and no script failed.
            for name, found in [("requests to another origin", foreign), ("script errors", errors)]:
                if found:
                    failed += 1
                    print(f"FAIL  {name}: {found}", flush=True)
                else:
                    passed += 1
                    print(f"ok    no {name}", flush=True)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"{time.monotonic() - started:.1f} s in all")
    print(f"browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
