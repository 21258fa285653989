import DeviceOracleJSON
import DeviceOracleRules

/// `refresh/1`'s job model on the wire. A walk replays as runs against the
/// model's server (items `{"id", "revision"}`). A log's runs take the model's
/// transitions from the clean start: its node follows from the runs before, as
/// in the model, and each run's class from its pages and fault.
struct RefreshModelCoding: ModelCoding {
    private let explored = MadeOnFirstUse { StateGraph(RefreshModel()) }
    var graph: StateGraph<RefreshModel> { explored.value }

    func writeRequest(start _: Int, events runs: [RefreshRun<Int>], to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("runs")
        writer.beginArray()
        for run in runs { write(run, to: &writer) }
        writer.endArray()
        writer.endObject()
    }

    /// One run of a request, as the model delivers it.
    func write(_ run: RefreshRun<Int>, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("at")
        writer.number(run.at)
        writer.key("pages")
        writer.beginArray()
        for page in run.pages { write(page, to: &writer) }
        writer.endArray()
        if let fault = run.fault {
            writer.key("fault")
            writer.beginObject()
            writer.key("kind")
            writer.string(escaping: fault.kind.rawValue)
            writer.key("stage")
            writer.string(escaping: fault.stage.rawValue)
            writer.key("page")
            writer.integer(fault.page)
            writer.endObject()
        }
        writer.endObject()
    }

    private func write(_ page: RefreshPage<Int>, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in page.items {
            writer.beginObject()
            writer.key("id")
            writer.string(escaping: item.id)
            writer.key("revision")
            writer.integer(item.content)
            writer.endObject()
        }
        writer.endArray()
        if let cursor = page.nextCursor {
            writer.key("nextCursor")
            writer.string(escaping: cursor)
        }
        writer.endObject()
    }

    /// Read from the log itself, which the endpoint has validated: the answer's
    /// steps show stores, not what a run leaves the next.
    func transitions(ofLog log: JSONValue, in document: JSONDocument, answer _: RulesetAnswer) -> [Int?] {
        guard let runs = document.member(log, "runs") else { return [] }
        let graph = graph
        var node = graph.startNodes[0]
        return document.elements(runs).map { run in
            guard let eventClass = eventClass(ofRun: run, in: document) else { return nil }
            let transition = graph.transitionIndex(from: node, eventClass: eventClass)
            node = graph.transitions[transition].to
            return transition
        }
    }

    /// A run's event class, from its page count and fault.
    func eventClass(ofRun run: JSONValue, in document: JSONDocument) -> Int? {
        let pageCount = document.member(run, "pages").map(document.count) ?? 0
        // The endpoint refused a fault outside its run, so every shape builds.
        guard let shape = try? RefreshRun<Int>(at: 0, pages: Array(repeating: RefreshPage(), count: pageCount),
                                               fault: document.member(run, "fault").flatMap { fault(in: $0, of: document) })
        else { return nil }
        return graph.model.eventClass(of: shape)
    }

    private func fault(in object: JSONValue, of document: JSONDocument) -> RefreshFault? {
        guard let kind = document.member(object, "kind").flatMap(document.string).flatMap(RefreshFaultKind.init),
              let stage = document.member(object, "stage").flatMap(document.string).flatMap(RefreshStage.init),
              let page = document.member(object, "page").flatMap(document.integer) else { return nil }
        return RefreshFault(kind: kind, stage: stage, page: page)
    }
}
