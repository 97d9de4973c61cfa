import Testing
import SyncSim
@testable import NotesSync

/// The engine's own transcript tests (postgres-nio style): drive a machine input by input.
@Suite struct NotesEngineTests {
    let note = NamespaceID(0)
    var title: FieldID { notesSchema.field(named: "title")! }

    @Test func aWriteIsPushedOnConnectAndDroppedOnAck() {
        var c = NotesClient(context: .testing(schema: notesSchema), retry: true, restoring: nil)
        let w = UserWrite(id: WriteID(0), ops: [.create(EntityID(1), note, [FieldAssignment(title, .string("a"))])])
        #expect(c.step(.user(.write(w))) == [.persist])
        #expect(c.pendingWrites == [WriteID(0)])
        #expect(c.step(.network(.online)) == [.connect])
        #expect(c.step(.connected) == [.send(.push(WriteID(0), w.ops)), .setTimer(NotesClient.ackTimer(WriteID(0)), afterMs: NotesClient.ackTimeoutMs)])
        #expect(c.step(.received(.ack(WriteID(0)))) == [.cancelTimer(NotesClient.ackTimer(WriteID(0))), .persist, .event(.writeConfirmed(WriteID(0)))])
        #expect(c.pendingWrites.isEmpty)
    }

    /// The planted bug, in one transcript: the ack timer fires and the write is gone, untold.
    @Test func noRetryForgetsATimedOutWrite() {
        var c = NotesClient(context: .testing(schema: notesSchema), retry: false, restoring: nil)
        _ = c.step(.network(.online))
        _ = c.step(.connected)
        let w = UserWrite(id: WriteID(3), ops: [.create(EntityID(1), note, [])])
        _ = c.step(.user(.write(w)))
        #expect(c.step(.timerFired(NotesClient.ackTimer(WriteID(3)))) == [.persist])
        #expect(c.pendingWrites.isEmpty)
    }

    /// A re-sent push is answered from memory, never applied twice.
    @Test func theServerIsIdempotent() {
        var s = NotesServer(clients: 1, schema: notesSchema)
        let a = ClientID(0)
        let push = NotesUp.push(WriteID(0), [.create(EntityID(1), note, [])])
        #expect(s.step(.received(from: a, push)).contains(.send(a, .ack(WriteID(0)))))
        #expect(s.step(.received(from: a, push)) == [.send(a, .ack(WriteID(0)))])
        _ = s.step(.received(from: a, .push(WriteID(1), [.delete(EntityID(1), note)])))
        #expect(s.step(.received(from: a, .push(WriteID(2), [.update(EntityID(1), note, [FieldAssignment(title, .string("b"))])])))
                    .contains(.send(a, .reject(WriteID(2), "entity 1 was deleted"))))
    }
}
