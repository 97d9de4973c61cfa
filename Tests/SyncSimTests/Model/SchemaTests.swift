import Testing
@testable import SyncSim

/// The schema's switch-based lookups (no shared arrays in hot loops) agree with its tables.
@Suite struct SchemaTests {
    @Test func lookupsAgreeWithTheTables() {
        #expect(Schema.fieldCount == Schema.fieldNames.count)
        #expect(Schema.linkCount == Schema.linkNames.count)
        for ns in NamespaceID.all {
            #expect(Array(ns.fields) == Schema.fieldsByNamespace[Int(ns.raw)])
            #expect(Array(ns.links) == Schema.linksByNamespace[Int(ns.raw)])
            #expect(ns.fields[0] == Schema.fieldsByNamespace[Int(ns.raw)][0])
        }
        for i in 0..<Schema.fieldCount {
            let f = FieldID(UInt8(i))
            #expect(f.kind == Schema.fieldKinds[i])
            #expect(f.namespace == Schema.fieldNamespace[i])
        }
        for i in 0..<Schema.linkCount {
            #expect(LinkID(UInt8(i)).from == Schema.linkFrom[i] && LinkID(UInt8(i)).to == Schema.linkTo[i])
        }
        #expect(EntityRecord(namespace: .todos).values.count == Schema.fieldCount)
    }
}
