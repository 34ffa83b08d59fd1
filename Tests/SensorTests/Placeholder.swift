import Testing
@Test func placeholderSensorTests() { #expect(1 + 1 == 2) }
