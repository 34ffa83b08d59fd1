import Testing
@Test func placeholderProtocolTests() { #expect(1 + 1 == 2) }
