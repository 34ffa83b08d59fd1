import Testing
@Test func placeholderAgentTests() { #expect(1 + 1 == 2) }
