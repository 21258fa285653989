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
    /// Bucket bounds in nanoseconds, compared without converting each duration.
    private static let bucketNanoseconds: [Int64] = bucketBounds.map { Int64(($0 * 1e9).rounded()) }

    /// Why a request got `503`.
    package enum OverloadCause: String, CaseIterable, Sendable {
        /// `--max-connections` reached: refused at accept.
        case connections
        /// The memory budget had no room within `--memory-wait`.
        case memory
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

        /// The route labels in the order they are written.
        var labels: [String] { Array(Set(routes.values)).sorted() }
    }

    struct Shard {
        /// Requests per (route, status slot); the last route row is "no route".
        var requests: [Int]
        /// Cumulative-ready bucket counts per route (one more than the bounds: `+Inf`).
        var buckets: [Int]
        var durationNanoseconds: [Int64]
        var bytesIn = 0
        var bytesOut = 0
        var inFlight = 0
        var overloaded = [Int](repeating: 0, count: OverloadCause.allCases.count)
        /// Per answer counter: counts by route label (its index in `labels`) and value.
        var answerCounts: [[Int]]
    }

    private let routeLabels: [String]
    private let answerCounters: [AnswerCounter]
    /// Per answer counter, the index of its label for each route index (nil: not counted).
    private let answerRoutes: [[Int?]]
    private let shards: [Locked<Shard>]
    private let emptyShard: Shard
    private let budget: MemoryBudget
    private let openConnections: @Sendable () -> Int

    /// The statuses counted by their own number; anything else counts as its class
    /// (`2xx`…), which keeps each shard a flat array.
    private static let countedStatuses = [100, 200, 204, 400, 404, 405, 408, 411, 413, 414, 415, 417, 422, 431,
                                          500, 501, 503, 505]
    private static let statusSlots = countedStatuses.count + 5
    /// Each status from 0 to 599 to its slot, looked up once per request.
    private static let slots: [UInt8] = (0..<600).map { status in
        UInt8(countedStatuses.firstIndex(of: status) ?? countedStatuses.count + min(4, max(0, status / 100 - 1)))
    }
    private static func slot(of status: Int) -> Int {
        status >= 0 && status < slots.count ? Int(slots[status]) : statusSlots - 1
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
        answerRoutes = answerCounters.map { counter in
            let labels = counter.labels
            return routes.map { path in counter.routes[path].flatMap { labels.firstIndex(of: $0) } }
        }
        self.budget = budget
        let rows = routes.count + 1
        let shard = Shard(requests: [Int](repeating: 0, count: rows * Self.statusSlots),
                          buckets: [Int](repeating: 0, count: rows * (Self.bucketBounds.count + 1)),
                          durationNanoseconds: [Int64](repeating: 0, count: rows),
                          answerCounts: answerCounters.map { [Int](repeating: 0, count: $0.labels.count * $0.values.count) })
        emptyShard = shard
        shards = (0..<max(1, loops)).map { _ in Locked(shard) }
    }

    /// What one loop counted since it last published: the same shape as a shard.
    struct Recorder {
        fileprivate var counts: Shard
        fileprivate(set) var isDirty = false
        fileprivate let metrics: ServerMetrics

        /// One answered request: its route index (nil: no route matched, or refused
        /// before its head was read), status, time from its first byte to its last
        /// answer byte, and its log fields.
        mutating func answered(route: Int?, status: Int, nanoseconds: Int64, logFields: [(String, String)],
                               overload: OverloadCause?) {
            let row = route ?? metrics.routeLabels.count
            let bucket = ServerMetrics.bucketNanoseconds.firstIndex { nanoseconds <= $0 } ?? ServerMetrics.bucketBounds.count
            counts.requests[row * ServerMetrics.statusSlots + ServerMetrics.slot(of: status)] += 1
            counts.buckets[row * (ServerMetrics.bucketBounds.count + 1) + bucket] += 1
            counts.durationNanoseconds[row] += nanoseconds
            if let overload { counts.overloaded[OverloadCause.allCases.firstIndex(of: overload) ?? 0] += 1 }
            if let route {
                // By index, reading each counter in place: copying an `AnswerCounter` out per
                // request retained and released its strings, dictionary and array.
                for index in metrics.answerCounters.indices {
                    if let label = metrics.answerRoutes[index][route],
                       let field = logFields.first(where: { $0.0 == metrics.answerCounters[index].field }),
                       let value = metrics.answerCounters[index].values.firstIndex(of: field.1) {
                        counts.answerCounts[index][label * metrics.answerCounters[index].values.count + value] += 1
                    }
                }
            }
            isDirty = true
        }

        mutating func bytesReceived(_ count: Int) {
            counts.bytesIn += count
            isDirty = true
        }

        mutating func bytesSent(_ count: Int) {
            counts.bytesOut += count
            isDirty = true
        }

        /// A handler starts (+1) or its answer has gone or been cut (-1).
        mutating func inFlight(_ change: Int) {
            counts.inFlight += change
            isDirty = true
        }
    }

    /// A recorder for one loop; `loop` names its shard.
    func recorder() -> Recorder { Recorder(counts: emptyShard, metrics: self) }

    /// Adds what `recorder` counted to `loop`'s shard and starts it again from zero.
    func publish(_ recorder: inout Recorder, loop: Int) {
        guard recorder.isDirty else { return }
        shards[loop % shards.count].withLock { $0.add(recorder.counts) }
        recorder = self.recorder()
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
        var total = emptyShard
        for shard in shards { shard.withLock { total.add($0) } }

        var text = ""
        func family(_ name: String, _ type: String, _ help: String) {
            text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
        }
        let labels = routeLabels + [""]
        family("deviceoracle_http_requests_total", "counter", "Requests answered, by route (empty: no route matched) and status.")
        for row in labels.indices {
            for slot in 0..<Self.statusSlots where total.requests[row * Self.statusSlots + slot] > 0 {
                text += "deviceoracle_http_requests_total{route=\"\(escape(labels[row]))\",status=\"\(Self.statusLabel(ofSlot: slot))\"} \(total.requests[row * Self.statusSlots + slot])\n"
            }
        }
        family("deviceoracle_http_request_duration_seconds", "histogram",
               "Time from a request's first byte to its answer's last, by route.")
        for row in labels.indices {
            let base = row * (Self.bucketBounds.count + 1)
            let count = total.buckets[base..<(base + Self.bucketBounds.count + 1)].reduce(0, +)
            guard count > 0 else { continue }
            let route = "route=\"\(escape(labels[row]))\""
            var cumulative = 0
            for (index, bound) in Self.bucketBounds.enumerated() {
                cumulative += total.buckets[base + index]
                text += "deviceoracle_http_request_duration_seconds_bucket{\(route),le=\"\(bound)\"} \(cumulative)\n"
            }
            text += "deviceoracle_http_request_duration_seconds_bucket{\(route),le=\"+Inf\"} \(count)\n"
            text += "deviceoracle_http_request_duration_seconds_sum{\(route)} \(Double(total.durationNanoseconds[row]) / 1e9)\n"
            text += "deviceoracle_http_request_duration_seconds_count{\(route)} \(count)\n"
        }
        family("deviceoracle_http_request_bytes_total", "counter", "Request bytes received: heads and bodies.")
        text += "deviceoracle_http_request_bytes_total \(total.bytesIn)\n"
        family("deviceoracle_http_response_bytes_total", "counter", "Answer bytes sent: heads and bodies.")
        text += "deviceoracle_http_response_bytes_total \(total.bytesOut)\n"
        family("deviceoracle_http_connections_open", "gauge", "Client connections open now.")
        text += "deviceoracle_http_connections_open \(openConnections())\n"
        family("deviceoracle_http_requests_in_flight", "gauge", "Requests whose handler has started and whose answer has not yet gone whole (a long answer streams).")
        text += "deviceoracle_http_requests_in_flight \(total.inFlight)\n"
        family("deviceoracle_http_overloaded_total", "counter", "Requests and connections answered 503, by cause: connections (--max-connections), memory (the budget, after --memory-wait).")
        for (index, cause) in OverloadCause.allCases.enumerated() {
            text += "deviceoracle_http_overloaded_total{cause=\"\(cause.rawValue)\"} \(total.overloaded[index])\n"
        }
        family("deviceoracle_memory_budget_used_bytes", "gauge", "Bytes of the memory budget held by requests and answers in flight.")
        text += "deviceoracle_memory_budget_used_bytes \(budget.usedBytes)\n"
        family("deviceoracle_memory_budget_limit_bytes", "gauge", "The memory budget (--max-memory-bytes).")
        text += "deviceoracle_memory_budget_limit_bytes \(budget.limit)\n"
        for (index, counter) in answerCounters.enumerated() {
            family(counter.name, "counter", counter.help)
            for (labelIndex, label) in counter.labels.enumerated() {
                for (valueIndex, value) in counter.values.enumerated() {
                    let count = total.answerCounts[index][labelIndex * counter.values.count + valueIndex]
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

private extension ServerMetrics.Shard {
    mutating func add(_ other: Self) {
        for i in requests.indices { requests[i] += other.requests[i] }
        for i in buckets.indices { buckets[i] += other.buckets[i] }
        for i in durationNanoseconds.indices { durationNanoseconds[i] += other.durationNanoseconds[i] }
        bytesIn += other.bytesIn
        bytesOut += other.bytesOut
        inFlight += other.inFlight
        for i in overloaded.indices { overloaded[i] += other.overloaded[i] }
        for i in answerCounts.indices {
            for j in answerCounts[i].indices { answerCounts[i][j] += other.answerCounts[i][j] }
        }
    }
}
