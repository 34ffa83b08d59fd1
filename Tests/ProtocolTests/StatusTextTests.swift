import StepProtocol
import StepdModel
import Testing

/// `stepctl status` right after start read "0 at - Hz, chip measured at - Hz".
@Suite struct StatusTextTests {
    func sensor(rate: Double?, delivered: Double?) -> StatusResult.Sensor {
        StatusResult.Sensor(model: "mpu6050", address: 0x68, bus: "simulated", health: .ok, samples: 12, errors: 0,
                            overflows: 1, reinits: 0, rateHz: rate, lastError: nil, deliveredHz: delivered)
    }

    @Test func unmeasuredRatesAreSaidInWords() {
        #expect(sensor(rate: nil, delivered: nil).samplesText
            == "12, rate not measured yet (errors 0, overflows 1, re-inits 0)")
        #expect(sensor(rate: nil, delivered: 40).samplesText
            == "12 at 40.0 Hz, chip rate not measured yet (errors 0, overflows 1, re-inits 0)")
        #expect(sensor(rate: 40.012, delivered: 40).samplesText
            == "12 at 40.0 Hz, chip measured at 40.01 Hz (errors 0, overflows 1, re-inits 0)")
    }
}
