import DeviceOracleJSON
import DeviceOracleRules

// `store`, `schedule` and `fault` are shapes this service defines, so they are
// closed (a typo is a 422 with a did-you-mean). Runs, pages and items come from
// device logs and server answers: their unknown members are ignored.

private enum StoreMember: String, CaseIterable, Sendable {
    case items, cursor, lastSuccessAt
}

private enum ScheduleMember: String, CaseIterable, Sendable {
    case intervalSeconds, backoffBaseSeconds, backoffMaxSeconds
}

private enum RunMember: String, CaseIterable, Sendable {
    case pages, fault
}

private enum PageMember: String, CaseIterable, Sendable {
    case items, nextCursor
}

private enum FaultMember: String, CaseIterable, Sendable {
    case kind, stage, page
}

private let storeMembers = ClosedNames<StoreMember>("store member")
private let scheduleMembers = ClosedNames<ScheduleMember>("schedule member")
private let runMembers = ClosedNames<RunMember>("run member")
private let pageMembers = ClosedNames<PageMember>("page member")
private let faultMembers = ClosedNames<FaultMember>("fault member")
private let faultKinds = ClosedNames<RefreshFaultKind>("fault kind")
private let faultStages = ClosedNames<RefreshStage>("fault stage")

/// A fault names one of the first 64 pages of its run. The request schema can
/// state "page < number of pages" only page by page, so the bound keeps
/// openapi.yaml exact; a fault further down a sync tells nothing new.
let faultPageLimit = 64

extension RequestDecoder {
    /// The starting store, and the ids it repeats in order of first repetition
    /// (the later item replaced the earlier in place, with a warning).
    mutating func refreshStore(_ object: JSONValue) -> (store: ServiceStore, repeatedIDs: [String]) {
        var store = ServiceStore(), repeatedIDs: [String] = [], reported = LiteralKeySet()
        closedObject(object, names: storeMembers) { decoder, member, value in
            switch member {
            case .items:
                guard let array = decoder.value(value, of: .array) else { return }
                for item in decoder.refreshItems(array) {
                    let replaced = store.upsert(item)
                    if replaced, reported.insert(LiteralKey(item.id)) { repeatedIDs.append(item.id) }
                }
            case .cursor:
                store.cursor = decoder.value(value, of: .string).flatMap(decoder.document.string)
            case .lastSuccessAt:
                store.lastSuccessAt = decoder.number(value)
            }
        }
        return (store, repeatedIDs)
    }

    mutating func refreshSchedule(_ object: JSONValue) -> RefreshSchedule {
        var schedule = RefreshSchedule()
        closedObject(object, names: scheduleMembers) { decoder, member, value in
            guard let seconds = decoder.nonNegativeNumber(value) else { return }
            switch member {
            case .intervalSeconds: schedule.intervalSeconds = seconds
            case .backoffBaseSeconds: schedule.backoffBaseSeconds = seconds
            case .backoffMaxSeconds: schedule.backoffMaxSeconds = seconds
            }
        }
        return schedule
    }

    /// One run as read: its envelope (`id`, the required `at`, `observed`) and the run,
    /// which is `nil` once the request has a problem (the answer is a `422`). A struct,
    /// not a tuple: the compiler destroyed the tuple through its runtime metadata, a
    /// thousand instructions a run.
    struct ReadRun {
        let envelope: EventEnvelope
        let run: RefreshRun<StoredItem>?
    }

    /// Reads one run. `spare` is the pages of the run read before, given back once it
    /// has run: their arrays are refilled here, not allocated again. Freeing a run's
    /// pages and their items goes through the runtime's generic destroy, a thousand
    /// instructions a run.
    mutating func refreshRun(_ object: JSONValue, reusing spare: inout [RefreshPage<StoredItem>]) -> ReadRun {
        var pagesValue: JSONValue?, faultValue: JSONValue?
        let envelope = envelope(of: object, in: document, own: runMembers, atRequired: true) { _, member, value in
            switch member {
            case .pages: pagesValue = value
            case .fault: faultValue = value
            }
        }
        var pages: [RefreshPage<StoredItem>] = []
        swap(&pages, &spare)
        var pageCount = 0, read = 0
        if let array = value(pagesValue, of: .array) {
            pageCount = document.count(array)
            pages.reserveCapacity(pageCount)
            // Element by element rather than through `objects(in:)`: no array per run.
            for page in document.elements(array) where has(page, .object) {
                if read == pages.count { pages.append(RefreshPage()) }
                refreshPage(page, into: &pages[read])
                read += 1
            }
        }
        pages.removeLast(pages.count - read)
        let fault = value(faultValue, of: .object).flatMap { refreshFault($0, pageCount: pageCount) }
        guard !hasProblems, let at = envelope.at else { return ReadRun(envelope: envelope, run: nil) }
        // `refreshFault` has reported a fault outside the run: this run always builds.
        return ReadRun(envelope: envelope, run: try? RefreshRun(at: at, pages: pages, fault: fault))
    }

    /// Reads a page into `page`, an earlier run's (its items' array kept) or a new one.
    private mutating func refreshPage(_ object: JSONValue, into page: inout RefreshPage<StoredItem>) {
        page.items.removeAll(keepingCapacity: true)
        page.nextCursor = nil
        for member in document.members(object) {
            switch pageMembers.match(member.key, in: document) {
            case .items?:
                if let array = value(member.value, of: .array) {
                    // A repeated `items` (a 422, still read) replaces the one before.
                    page.items.removeAll(keepingCapacity: true)
                    refreshItems(array, into: &page.items)
                }
            case .nextCursor?:
                page.nextCursor = value(member.value, of: .string).flatMap(document.string)
            case nil:
                break
            }
        }
    }

    /// Items of the store: objects with a string `id`, the business key.
    private mutating func refreshItems(_ array: JSONValue) -> [RefreshItem<StoredItem>] {
        var items: [RefreshItem<StoredItem>] = []
        refreshItems(array, into: &items)
        return items
    }

    /// Items of a page or of the store, appended to `items`.
    private mutating func refreshItems(_ array: JSONValue, into items: inout [RefreshItem<StoredItem>]) {
        items.reserveCapacity(items.count + document.count(array))
        var scratch = JSONWriter(capacity: 0)
        for object in document.elements(array) where has(object, .object) {
            guard let id = required(document.member(object, "id"), of: .string, member: "id", in: object)
                .flatMap(document.string) else { continue }
            items.append(RefreshItem(id: id, content: StoredItem(object, in: document, scratch: &scratch)))
        }
    }

    private mutating func refreshFault(_ object: JSONValue, pageCount: Int) -> RefreshFault? {
        var kindValue: JSONValue?, stageValue: JSONValue?, pageValue: JSONValue?
        closedObject(object, names: faultMembers) { _, member, value in
            switch member {
            case .kind: kindValue = value
            case .stage: stageValue = value
            case .page: pageValue = value
            }
        }
        let kind = required(kindValue, of: .string, member: "kind", in: object).flatMap { name($0, in: faultKinds) }
        let stage = required(stageValue, of: .string, member: "stage", in: object).flatMap { name($0, in: faultStages) }
        let page = required(pageValue, of: .number, member: "page", in: object).flatMap {
            faultPage($0, pageCount: pageCount)
        }
        guard let kind, let stage, let page else { return nil }
        return RefreshFault(kind: kind, stage: stage, page: page)
    }

    /// An integer ≥ 0 naming one of the run's pages, among the first 64.
    private mutating func faultPage(_ value: JSONValue, pageCount: Int) -> Int? {
        guard let number = document.number(value) else { return nil }
        // Rendered only for a problem: a valid page is the common case, once a run.
        let text = { canonicalText(number) }
        // Past Int's range every double is integral, and beyond any run's pages.
        guard number >= 0, document.integer(value) != nil || number >= 9.2e18 else {
            report("expected an integer ≥ 0, got \(text())", at: value)
            return nil
        }
        guard number < Double(pageCount) else {
            report("page \(text()) is beyond the run's pages: it has \(pageCount)", at: value)
            return nil
        }
        guard number < Double(faultPageLimit) else {
            report("a fault names one of the first \(faultPageLimit) pages of its run (0–\(faultPageLimit - 1)), got \(text())",
                   at: value)
            return nil
        }
        return document.integer(value)
    }

    private mutating func nonNegativeNumber(_ value: JSONValue) -> Double? {
        guard let number = number(value) else { return nil }
        guard number >= 0 else {
            report("expected a number ≥ 0, got \(canonicalText(number))", at: value)
            return nil
        }
        return number
    }
}
