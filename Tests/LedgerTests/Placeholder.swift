import Testing
@Test func placeholderLedgerTests() { #expect(1 + 1 == 2) }
