import Testing
@testable import SyncSim

/// Strategy annotations (`.note` effects) and queue lines: story only, never hashed, and the
/// strategy is told whether anyone will read them (`tracesNotes`), so it builds no text otherwise.
@Suite struct StoryNoteTests {
    struct NotingStrategy: SyncStrategy {
        var info: StrategyInfo { StrategyInfo(name: "noting", summary: "notes", contract: [], arbitration: .serverArrival) }
        var transport: Transport { .datagram }
        func makeClient(_ context: ClientContext, restoring durable: [WriteID]?) -> NotingClient {
            NotingClient(traces: context.tracesNotes)
        }
        func makeServer(_ context: ServerContext) -> NotingServer { NotingServer(traces: context.tracesNotes) }
    }

    struct NotingClient: ClientMachine {
        typealias Up = LazyQueueMessage
        typealias Down = LazyQueueMessage
        let traces: Bool
        var queue: [WriteID] = []
        var durableState: [WriteID] { queue }
        func result(of subscription: SubscriptionID) -> QueryResult? { nil }
        var pendingWrites: [WriteID] { queue }
        mutating func handle(_ input: ClientInput<LazyQueueMessage>, now: Int64, out: inout ClientOutbox<LazyQueueMessage>) {
            switch input {
            case .user(.write(let w)):
                queue.append(w.id)
                if traces { out(.note("queued \(w.id), \(queue.count) waiting")) }
                out(.send(.write(w)))
            case .received(.ack(let w)):
                queue.removeAll { $0 == w }
            default: break
            }
        }
    }

    struct NotingServer: ServerMachine {
        typealias Up = LazyQueueMessage
        typealias Down = LazyQueueMessage
        let traces: Bool
        var data = EntityStore()
        mutating func handle(_ input: ServerInput<LazyQueueMessage>, now: Int64, out: inout ServerOutbox<LazyQueueMessage>) {
            if case .received(let c, .write(let w)) = input {
                if traces { out(.note("acking \(w.id)")) }
                out(.send(c, .ack(w.id)))
            }
        }
    }

    @Test func notesAndQueueLinesAreStoryOnly() throws {
        let actions = [TimedAction(at: 100, .update(Fixture.A, Fixture.todo, Fixture.set(.title, .string("x"))))]
        let schedule = Schedule(options: Fixture.options(), initial: Fixture.initial, actions: actions)
        let full = try Simulator.run(NotingStrategy(), schedule, seed: 1, trace: .full)
        let bare = try Simulator.run(NotingStrategy(), schedule, seed: 1, trace: .hashOnly)
        #expect(full.traceHash == bare.traceHash)
        #expect(full.story.contains("A notes: queued w0, 1 waiting"), "\(full.story)")
        #expect(full.story.contains("server notes: acking w0"))
        #expect(full.story.contains("A's queue: 1 pending (was 0)"))
        #expect(full.story.contains("A's queue: 0 pending (was 1)"))
    }
}
