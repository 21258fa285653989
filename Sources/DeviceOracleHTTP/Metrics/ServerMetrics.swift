import Glibc

/// What `GET /metrics` reports, in the Prometheus text exposition format (0.0.4):
/// requests by route and status, their duration by route, bytes in and out, open
/// connections, requests in flight, the memory budget's use, `503`s by cause, and
/// answers counted by a log field (the executable counts verdicts by ruleset this
/// way; the server knows no ruleset).
///
/// Each event loop records into a `Recorder` of its own, with plain arithmetic and no
/// lock, and publishes it into its shard every 100 ms at most (one uncontended lock
/// however many requests it answered meanwhile); a scrape adds the shards up. Labels are the server's own
/// words — a route's path, a status code, a cause — never a client's bytes, so a
/// client cannot grow the number of series.
package final class ServerMetrics: Sendable {
    /// Upper bounds of the duration histogram, in seconds.
    static let bucketBounds: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                         0.25, 0.5, 1, 2.5, 5, 10]

    /// Why a request got `503`.
    package enum OverloadCause: String, CaseIterable, Sendable {
        /// `--max-connections` reached: refused at accept.
        case connections
        /// The memory budget had no room within `--memory-wait`.
        case memory

        /// Its place among the counts (`Layout.overloaded`).
        var index: Int {
            switch self {
            case .connections: 0
            case .memory: 1
            }
        }
    }

    /// Answers of some routes counted by one of their log fields, the route named by a
    /// label of its own: `deviceoracle_verdicts_total{ruleset="playback/1",verdict="pass"}`.
    package struct AnswerCounter: Sendable {
        package let name: String
        package let help: String
        /// The label naming the route (`ruleset`), and its value for each route counted.
        package let routeLabel: String
        package let routes: [String: String]
        /// The log field counted (`verdict`), and the values counted; an answer without
        /// the field, or with another value, is not counted.
        package let field: String
        package let values: [String]

        package init(name: String, help: String, routeLabel: String, routes: [String: String], field: String,
                    values: [String]) {
            self.name = name
            self.help = help
            self.routeLabel = routeLabel
            self.routes = routes
            self.field = field
            self.values = values
        }

        /// The log field this counter counts, with `value`: made once (a verdict's), it is
        /// counted by its value's place, found here rather than per answer.
        package func field(_ value: String) -> LogField {
            LogField(field, value, counted: values.firstIndex(of: value).map { (counter: name, value: $0) })
        }

        /// The place of `field`'s value among `values` (`field` has this counter's field name).
        fileprivate func position(of field: LogField) -> Int? {
            if let counted = field.counted, counted.counter == name { return counted.value }
            return values.firstIndex(of: field.value)
        }

        /// The route labels in the order they are written.
        var labels: [String] { Array(Set(routes.values)).sorted() }
    }

    /// Where each count is in a shard's one flat array of integers (and a recorder's):
    /// requests per (route row, status slot), then duration buckets per row (one more
    /// than the bounds: `+Inf`), nanoseconds per row, bytes in and out, requests in
    /// flight, `503`s by cause, then each answer counter's counts by label and value.
    /// The last route row is "no route".
    struct Layout {
        let rows: Int
        var requests: Int { 0 }
        let buckets: Int
        let durations: Int
        let bytesIn: Int
        var bytesOut: Int { bytesIn + 1 }
        var inFlight: Int { bytesIn + 2 }
        var overloaded: Int { bytesIn + 3 }
        /// Per answer counter, where its counts start.
        let answerCounts: [Int]
        let count: Int

        init(routes: Int, answerCounters: [AnswerCounter]) {
            rows = routes + 1
            buckets = rows * ServerMetrics.statusSlots
            durations = buckets + rows * (ServerMetrics.bucketBounds.count + 1)
            bytesIn = durations + rows
            var next = bytesIn + 3 + OverloadCause.allCases.count
            answerCounts = answerCounters.map { counter in
                defer { next += counter.labels.count * counter.values.count }
                return next
            }
            count = next
        }
    }

    private let routeLabels: [String]
    private let answerCounters: [AnswerCounter]
    private let layout: Layout
    private let shards: [Locked<[Int]>]
    private let budget: MemoryBudget
    private let openConnections: @Sendable () -> Int

    /// The statuses counted by their own number; anything else counts as its class
    /// (`2xx`…), which keeps each shard a flat array.
    private static let countedStatuses = [100, 200, 204, 400, 404, 405, 408, 411, 413, 414, 415, 417, 422, 431,
                                          500, 501, 503, 505]
    fileprivate static let statusSlots = countedStatuses.count + 5
    /// Each status from 0 to 599 to its slot.
    fileprivate static let slots: [UInt8] = (0..<600).map { status in
        UInt8(countedStatuses.firstIndex(of: status) ?? countedStatuses.count + min(4, max(0, status / 100 - 1)))
    }
    private static func statusLabel(ofSlot slot: Int) -> String {
        slot < countedStatuses.count ? String(countedStatuses[slot]) : "\(slot - countedStatuses.count + 1)xx"
    }

    /// `routes`: the label of each route index (its path); `loops`: how many shards.
    init(routes: [String], loops: Int, answerCounters: [AnswerCounter], budget: MemoryBudget,
         openConnections: @escaping @Sendable () -> Int) {
        self.openConnections = openConnections
        routeLabels = routes
        self.answerCounters = answerCounters
        let layout = Layout(routes: routes.count, answerCounters: answerCounters)
        self.layout = layout
        self.budget = budget
        shards = (0..<max(1, loops)).map { _ in Locked([Int](repeating: 0, count: layout.count)) }
    }

    /// What one loop counted since it last published, laid out as a shard (`Layout`).
    /// Counting an answer is a few additions to plain integers, found by tables made
    /// once: no array's uniqueness check, no string compared but the counted log field's.
    struct Recorder {
        fileprivate let tally: Tally
        fileprivate(set) var isDirty = false

        /// One answered request: its route index (nil: no route matched, or refused
        /// before its head was read), status, time from its first byte to its last
        /// answer byte, and its log fields.
        mutating func answered(route: Int?, status: Int, nanoseconds: Int64, logFields: [LogField],
                               overload: OverloadCause?) {
            let tally = tally, counts = tally.counts
            let row = route ?? tally.rows - 1
            let slot = status >= 0 && status < tally.slots.count ? Int(tally.slots[status]) : ServerMetrics.statusSlots - 1
            counts[row * ServerMetrics.statusSlots + slot] += 1
            var bucket = 0
            while bucket < tally.bounds.count && nanoseconds > tally.bounds[bucket] { bucket += 1 }
            counts[tally.buckets + row * (tally.bounds.count + 1) + bucket] += 1
            counts[tally.durations + row] += Int(nanoseconds)
            if let overload { counts[tally.overloaded + overload.index] += 1 }
            if let route, !logFields.isEmpty { tally.countAnswer(route: route, logFields: logFields) }
            isDirty = true
        }

        mutating func bytesReceived(_ count: Int) {
            tally.counts[tally.bytesIn] += count
            isDirty = true
        }

        mutating func bytesSent(_ count: Int) {
            tally.counts[tally.bytesIn + 1] += count
            isDirty = true
        }

        /// A handler starts (+1) or its answer has gone or been cut (-1).
        mutating func inFlight(_ change: Int) {
            tally.counts[tally.bytesIn + 2] += change
            isDirty = true
        }
    }

    /// A recorder's counts and the tables it finds them by: one loop's alone, so
    /// written without a lock, and published (added to the loop's shard) from there.
    fileprivate final class Tally {
        let counts: UnsafeMutableBufferPointer<Int>
        let rows: Int, buckets: Int, durations: Int, bytesIn: Int, overloaded: Int
        let slots: UnsafeMutableBufferPointer<UInt8>
        /// Bucket bounds in nanoseconds, compared without converting each duration.
        let bounds: UnsafeMutableBufferPointer<Int64>
        /// Per answer counter and route index: where that route's label's counts start
        /// (-1: the route is not counted).
        let answerStarts: UnsafeMutableBufferPointer<Int>
        let answerCounters: [AnswerCounter]

        init(_ metrics: ServerMetrics) {
            let layout = metrics.layout
            counts = .allocate(capacity: layout.count)
            counts.initialize(repeating: 0)
            rows = layout.rows
            buckets = layout.buckets
            durations = layout.durations
            bytesIn = layout.bytesIn
            overloaded = layout.overloaded
            slots = .allocate(capacity: ServerMetrics.slots.count)
            _ = slots.initialize(from: ServerMetrics.slots)
            bounds = .allocate(capacity: ServerMetrics.bucketBounds.count)
            _ = bounds.initialize(from: ServerMetrics.bucketBounds.map { Int64(($0 * 1e9).rounded()) })
            answerCounters = metrics.answerCounters
            let routes = metrics.routeLabels
            answerStarts = .allocate(capacity: max(1, answerCounters.count * routes.count))
            answerStarts.initialize(repeating: -1)
            for (index, counter) in answerCounters.enumerated() {
                let labels = counter.labels
                for (route, path) in routes.enumerated() {
                    if let label = counter.routes[path].flatMap({ labels.firstIndex(of: $0) }) {
                        answerStarts[index * routes.count + route] = layout.answerCounts[index] + label * counter.values.count
                    }
                }
            }
        }

        deinit {
            counts.deallocate()
            slots.deallocate()
            bounds.deallocate()
            answerStarts.deallocate()
        }

        /// Counts an answer of `route` by the log field each counter counts.
        func countAnswer(route: Int, logFields: [LogField]) {
            let routes = rows - 1
            for index in answerCounters.indices {
                let start = answerStarts[index * routes + route]
                guard start >= 0 else { continue }
                // Read in place: copying an `AnswerCounter` out retained its strings, dictionary and array.
                for field in logFields where field.name == answerCounters[index].field {
                    if let position = answerCounters[index].position(of: field) { counts[start + position] += 1 }
                    break
                }
            }
        }
    }

    /// A recorder for one loop.
    func recorder() -> Recorder { Recorder(tally: Tally(self)) }

    /// Adds what `recorder` counted to `loop`'s shard and starts it again from zero.
    func publish(_ recorder: inout Recorder, loop: Int) {
        guard recorder.isDirty else { return }
        let counts = recorder.tally.counts
        shards[loop % shards.count].withLock { shard in
            for index in shard.indices { shard[index] += counts[index] }
        }
        counts.update(repeating: 0)
        recorder.isDirty = false
    }

    static let path = "/metrics"

    /// `GET /metrics`.
    var route: Route {
        Route(path: Self.path, methods: [.GET]) { [self] _ in
            HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: exposition())
        }
    }

    /// The exposition: every family with `# HELP` and `# TYPE`, series in a fixed order.
    package func exposition() -> [UInt8] {
        var total = [Int](repeating: 0, count: layout.count)
        for shard in shards {
            shard.withLock { counts in for index in counts.indices { total[index] += counts[index] } }
        }

        var text = ""
        func family(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        let labels = routeLabels + [""]
        family("deviceoracle_http_requests_total", "counter", "Requests answered, by route (empty: no route matched) and status.")
        for row in labels.indices {
            for slot in 0..<Self.statusSlots where total[layout.requests + row * Self.statusSlots + slot] > 0 {
                text += "deviceoracle_http_requests_total{route=\"\(escape(labels[row]))\",status=\"\(Self.statusLabel(ofSlot: slot))\"} \(total[layout.requests + row * Self.statusSlots + slot])\n"
            }
        }
        family("deviceoracle_http_request_duration_seconds", "histogram",
               "Time from a request's first byte to its answer's last, by route.")
        for row in labels.indices {
            let base = layout.buckets + row * (Self.bucketBounds.count + 1)
            let count = total[base..<(base + Self.bucketBounds.count + 1)].reduce(0, +)
            guard count > 0 else { continue }
            let route = "route=\"\(escape(labels[row]))\""
            var cumulative = 0
            for (index, bound) in Self.bucketBounds.enumerated() {
                cumulative += total[base + index]
                text += "deviceoracle_http_request_duration_seconds_bucket{\(route),le=\"\(bound)\"} \(cumulative)\n"
            }
            text += "deviceoracle_http_request_duration_seconds_bucket{\(route),le=\"+Inf\"} \(count)\n"
            text += "deviceoracle_http_request_duration_seconds_sum{\(route)} \(Double(total[layout.durations + row]) / 1e9)\n"
            text += "deviceoracle_http_request_duration_seconds_count{\(route)} \(count)\n"
        }
        family("deviceoracle_http_request_bytes_total", "counter", "Request bytes received: heads and bodies.")
        text += "deviceoracle_http_request_bytes_total \(total[layout.bytesIn])\n"
        family("deviceoracle_http_response_bytes_total", "counter", "Answer bytes sent: heads and bodies.")
        text += "deviceoracle_http_response_bytes_total \(total[layout.bytesOut])\n"
        family("deviceoracle_http_connections_open", "gauge", "Client connections open now.")
        text += "deviceoracle_http_connections_open \(openConnections())\n"
        family("deviceoracle_http_requests_in_flight", "gauge", "Requests whose handler has started and whose answer has not yet gone whole (a long answer streams).")
        text += "deviceoracle_http_requests_in_flight \(total[layout.inFlight])\n"
        family("deviceoracle_http_overloaded_total", "counter", "Requests and connections answered 503, by cause: connections (--max-connections), memory (the budget, after --memory-wait).")
        for cause in OverloadCause.allCases {
            text += "deviceoracle_http_overloaded_total{cause=\"\(cause.rawValue)\"} \(total[layout.overloaded + cause.index])\n"
        }
        family("deviceoracle_memory_budget_used_bytes", "gauge", "Bytes of the memory budget held by requests and answers in flight.")
        text += "deviceoracle_memory_budget_used_bytes \(budget.usedBytes)\n"
        family("deviceoracle_memory_budget_limit_bytes", "gauge", "The memory budget (--max-memory-bytes).")
        text += "deviceoracle_memory_budget_limit_bytes \(budget.limit)\n"
        for (index, counter) in answerCounters.enumerated() {
            family(counter.name, "counter", counter.help)
            for (labelIndex, label) in counter.labels.enumerated() {
                for (valueIndex, value) in counter.values.enumerated() {
                    let count = total[layout.answerCounts[index] + labelIndex * counter.values.count + valueIndex]
                    text += "\(counter.name){\(counter.routeLabel)=\"\(escape(label))\",\(counter.field)=\"\(escape(value))\"} \(count)\n"
                }
            }
        }
        return Array(text.utf8)
    }

    /// A label value as the format wants it: backslash, quote and newline escaped.
    private func escape(_ value: String) -> String {
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
