import StepJSON
import StepProtocol
import StepdModel
import Testing

private func params(_ text: String) throws -> JSONValue { try JSONParser.parse(text) }

private func expectInvalid(_ code: Int, _ containing: String, _ body: () throws(RPCError) -> Void,
                           sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        try body()
        Issue.record("accepted", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(containing), "\(error.message)", sourceLocation: sourceLocation)
    }
}

@Suite struct EnvelopeTests {
    @Test func decodesRequestsAndNotifications() throws {
        let r = try #require(try? RPCRequest.decode(params("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"status\"}")).get())
        #expect(r.id == .number(7))
        #expect(r.method == "status")
        let n = try #require(try? RPCRequest.decode(params("{\"jsonrpc\":\"2.0\",\"method\":\"status\"}")).get())
        #expect(n.id == nil)
    }

    @Test func rejectsBadEnvelopes() throws {
        let cases: [(String, String)] = [
            ("[1]", "JSON object"), ("{\"id\":1,\"method\":\"status\"}", "jsonrpc"),
            ("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"status\"}", "jsonrpc"),
            ("{\"jsonrpc\":\"2.0\",\"id\":1}", "method"), ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", "method"),
            ("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"status\"}", "id"),
            ("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"status\"}", "id"),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\",\"params\":3}", "params"),
            ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\",\"extra\":3}", "unknown member"),
        ]
        for (text, fragment) in cases {
            let value = try params(text)
            guard case .failure(let e) = RPCRequest.decode(value) else {
                Issue.record("accepted \(text)")
                continue
            }
            #expect(e.error.code == RPCError.invalidRequestCode)
            #expect(e.error.message.contains(fragment), "\(e.error.message)")
        }
    }

    @Test func keepsIDOnInvalidRequest() throws {
        guard case .failure(let e) = RPCRequest.decode(try params("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"\"}")) else {
            Issue.record("accepted")
            return
        }
        #expect(e.id == .string("x"))
    }

    @Test func batches() {
        guard case .batch(let items) = RPCIncoming.decode(line: Array("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\"},5]".utf8)[...]) else {
            Issue.record("not a batch")
            return
        }
        #expect(items.count == 2)
        if case .single(.failure(let e)) = RPCIncoming.decode(line: Array("[]".utf8)[...]) {
            #expect(e.error.code == RPCError.invalidRequestCode)
        } else {
            Issue.record("empty batch accepted")
        }
        let big = "[" + Array(repeating: "1", count: 33).joined(separator: ",") + "]"
        if case .single(.failure(let e)) = RPCIncoming.decode(line: Array(big.utf8)[...]) {
            #expect(e.error.message.contains("at most 32"))
        } else {
            Issue.record("oversized batch accepted")
        }
        if case .unparsable(let e) = RPCIncoming.decode(line: [0xFF]) {
            #expect(e.code == RPCError.parseErrorCode)
        } else {
            Issue.record("invalid UTF-8 accepted")
        }
    }

    @Test func responsesSerialize() {
        #expect(RPCResponse.success(id: .number(1), result: ["a": 1]).jsonText == "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1}}")
        #expect(RPCResponse.failure(id: .null, error: RPCError(code: -32700, message: "m")).jsonText
            == "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"m\"}}")
    }
}

@Suite struct ParamDecodingTests {
    @Test func stepsQuery() throws {
        let p = try StepsQueryParams(json: params("{\"start\":1700000000,\"end\":1700003600.5}"))
        #expect(p.range == .between(start: 1_700_000_000, end: 1_700_003_600.5))
        let today = try StepsQueryParams(json: params("{\"today\":true,\"time_zone\":\"Europe/Berlin\",\"by_source\":true}"))
        #expect(today.range == .today)
        #expect(today.timeZone == "Europe/Berlin")
        #expect(today.bySource)
        expectInvalid(-32602, "unknown field \"stat\"") { () throws(RPCError) in _ = try StepsQueryParams(json: try? params("{\"stat\":1,\"end\":2}")) }
        expectInvalid(-32602, "\"start\" must be UTC seconds") { () throws(RPCError) in _ = try StepsQueryParams(json: try? params("{\"start\":\"x\",\"end\":2}")) }
        expectInvalid(-32602, "needs \"start\" and \"end\"") { () throws(RPCError) in _ = try StepsQueryParams(json: try? params("{\"start\":1}")) }
        expectInvalid(-32004, "must be after") { () throws(RPCError) in _ = try StepsQueryParams(json: try? params("{\"start\":5,\"end\":5}")) }
        expectInvalid(-32602, "not both") { () throws(RPCError) in _ = try StepsQueryParams(json: try? params("{\"today\":true,\"start\":1}")) }
        expectInvalid(-32602, "between 0 and") { () throws(RPCError) in _ = try StepsQueryParams(json: try? params("{\"start\":-1,\"end\":2}")) }
        expectInvalid(-32602, "IANA") { () throws(RPCError) in _ = try StepsQueryParams(json: try? params("{\"today\":true,\"time_zone\":\"../etc/passwd\"}")) }
        expectInvalid(-32602, "true or false") { () throws(RPCError) in _ = try StepsQueryParams(json: try? params("{\"today\":1}")) }
        expectInvalid(-32602, "object with named fields") { () throws(RPCError) in _ = try StepsQueryParams(json: try? params("[1,2]")) }
    }

    @Test func statistics() throws {
        let p = try StepsStatisticsParams(json: params("{\"start\":0,\"end\":864000,\"bucket\":{\"hours\":6},\"options\":[\"min\",\"max\",\"avg\",\"sum\"]}"))
        #expect(p.bucket == BucketInterval(.hours, 6))
        #expect(p.options == [.min, .max, .avg, .sum])
        let d = try StepsStatisticsParams(json: params("{\"today\":true}"))
        #expect(d.options == [.sum])
        #expect(d.bucket == BucketInterval(.days, 1))
        expectInvalid(-32602, "unknown option \"median\"") { () throws(RPCError) in
            _ = try StepsStatisticsParams(json: try? params("{\"today\":true,\"options\":[\"median\"]}"))
        }
        expectInvalid(-32602, "exactly one of") { () throws(RPCError) in
            _ = try StepsStatisticsParams(json: try? params("{\"today\":true,\"bucket\":{\"weeks\":1}}"))
        }
        expectInvalid(-32602, "must be an object") { () throws(RPCError) in
            _ = try StepsStatisticsParams(json: try? params("{\"today\":true,\"bucket\":\"hour\"}"))
        }
        expectInvalid(-32004, "buckets") { () throws(RPCError) in
            _ = try StepsStatisticsParams(json: try? params("{\"start\":0,\"end\":31536000,\"bucket\":{\"minutes\":1}}"))
        }
    }

    @Test func collection() throws {
        let p = try StepsCollectionParams(json: params(
            "{\"start\":1700000000,\"end\":1700604800,\"anchor\":1699999200,\"interval\":{\"days\":1},\"time_zone\":\"UTC\",\"by_source\":true,\"include_user_entered\":false}"))
        #expect(p.interval == BucketInterval(.days, 1))
        #expect(p.anchor == 1_699_999_200)
        #expect(p.bySource)
        #expect(!p.selection.includeUserEntered)
        #expect(try StepsCollectionParams(json: p.json) == p)
        expectInvalid(-32602, "needs \"interval\"") { () throws(RPCError) in _ = try StepsCollectionParams(json: try? params("{\"today\":true}")) }
        expectInvalid(-32602, "between 1 and 1440") { () throws(RPCError) in
            _ = try StepsCollectionParams(json: try? params("{\"today\":true,\"interval\":{\"minutes\":0}}"))
        }
        expectInvalid(-32602, "\"by_source\" must be true or false") { () throws(RPCError) in
            _ = try StepsCollectionParams(json: try? params("{\"today\":true,\"interval\":{\"hours\":1},\"by_source\":\"yes\"}"))
        }
    }

    @Test func activityAndSubscriptions() throws {
        _ = try ActivityQueryParams(json: params("{\"start\":1,\"end\":100}"))
        expectInvalid(-32004, "too long") { () throws(RPCError) in _ = try ActivityQueryParams(json: try? params("{\"start\":0,\"end\":4000000}")) }
        #expect(try StepsSubscribeParams(json: nil).updateOn == 1)
        #expect(try StepsSubscribeParams(json: params("{\"update_on\":100}")).updateOn == 100)
        expectInvalid(-32602, "between 1 and 100000") { () throws(RPCError) in _ = try StepsSubscribeParams(json: try? params("{\"update_on\":0}")) }
        expectInvalid(-32602, "integer") { () throws(RPCError) in _ = try StepsSubscribeParams(json: try? params("{\"update_on\":1.5}")) }
        #expect(try UnsubscribeParams(json: params("{\"subscription\":3}")).subscription == 3)
        expectInvalid(-32602, "needs \"subscription\"") { () throws(RPCError) in _ = try UnsubscribeParams(json: try? params("{}")) }
        expectInvalid(-32602, "unknown field") { () throws(RPCError) in try NoParams.check(try? params("{\"x\":1}"), method: .status) }
        try NoParams.check(params("[]"), method: .status)
        try NoParams.check(nil, method: .activityCurrent)
    }

    @Test func samples() throws {
        let p = try SamplesAddParams(json: params(
            "{\"source\":\"phone.app\",\"start\":1700000000,\"end\":1700000600,\"steps\":800,\"distance_m\":600.5,\"user_entered\":true}"))
        #expect(p == SamplesAddParams(SampleInput(source: "app:phone.app", start: 1_700_000_000, end: 1_700_000_600, steps: 800,
                                                  distanceMeters: 600.5, userEntered: true)))
        #expect(try SamplesAddParams(json: p.json) == p)
        expectInvalid(-32004, "reserved") { () throws(RPCError) in
            _ = try SamplesAddParams(json: try? params("{\"source\":\"detector:x\",\"start\":1,\"end\":2,\"steps\":1}"))
        }
        expectInvalid(-32602, "source name kind:id") { () throws(RPCError) in
            _ = try SamplesAddParams(json: try? params("{\"source\":\"a b\",\"start\":1,\"end\":2,\"steps\":1}"))
        }
        expectInvalid(-32602, "\"steps\" must be between 0 and 200000") { () throws(RPCError) in
            _ = try SamplesAddParams(json: try? params("{\"source\":\"a\",\"start\":1,\"end\":2,\"steps\":-4}"))
        }
        // Issue 12, defect 7: the parameter check allowed 12.5 steps/s while the ledger refused
        // more than 5; now both read SampleLimits.
        expectInvalid(-32004, "5 steps/s") { () throws(RPCError) in
            _ = try SamplesAddParams(json: try? params("{\"source\":\"a\",\"start\":1,\"end\":11,\"steps\":60}"))
        }
        #expect(try SamplesAddParams(json: params("{\"source\":\"a\",\"start\":1,\"end\":11,\"steps\":50}")).samples.count == 1)
        expectInvalid(-32004, "86400 s") { () throws(RPCError) in
            _ = try SamplesAddParams(json: try? params("{\"source\":\"a\",\"start\":1,\"end\":90000,\"steps\":5}"))
        }
        expectInvalid(-32602, "needs \"steps\"") { () throws(RPCError) in
            _ = try SamplesAddParams(json: try? params("{\"source\":\"a\",\"start\":1,\"end\":2}"))
        }
        let d = try SamplesDeleteParams(json: params("{\"source\":\"phone\",\"ids\":[\"a\",\"b\"]}"))
        #expect(d.ids == ["a", "b"])
        expectInvalid(-32602, "\"ids\"[1]") { () throws(RPCError) in
            _ = try SamplesDeleteParams(json: try? params("{\"source\":\"phone\",\"ids\":[\"a\",2]}"))
        }
        expectInvalid(-32602, "must not be empty") { () throws(RPCError) in
            _ = try SamplesDeleteParams(json: try? params("{\"source\":\"phone\",\"ids\":[]}"))
        }
    }

    /// Issue 12: the `kind:id` form the ledger ranks and exports by was refused by the check.
    @Test func sourceNamesHaveOneForm() throws {
        let p = try SamplesDeleteParams(json: params("{\"source\":\"device:watch-1\",\"ids\":[\"3\"]}"))
        #expect(p.source == "device:watch-1")
        #expect(try SamplesDeleteParams(json: params("{\"source\":\"phone\",\"ids\":[\"3\"]}")).source == "app:phone")
        let q = try StepsQueryParams(json: params("{\"today\":true,\"sources\":[\"app:phone\",\"manual:alice\"],\"include_user_entered\":false}"))
        #expect(q.selection == SampleSelection(sources: ["app:phone", "manual:alice"], includeUserEntered: false))
        #expect(try StepsQueryParams(json: q.json) == q)
        #expect(try StepsStatisticsParams(json: params("{\"today\":true}")).selection.includeUserEntered)
        #expect(try SourcesPriorityParams(json: params("{\"order\":[\"device:watch\",\"phone\"]}")).order == ["device:watch", "app:phone"])
        // [] clears the order, as documented; a source list elsewhere still may not be empty.
        #expect(try SourcesPriorityParams(json: params("{\"order\":[]}")).order == [])
        #expect(throws: RPCError.self) { try StepsQueryParams(json: params("{\"today\":true,\"sources\":[]}")) }
        // An empty or overlong name is said to be one ("got a string" said nothing).
        for (name, said) in [("\"\"", "got an empty string"), ("\"" + String(repeating: "a", count: 81) + "\"", "got 81 bytes")] {
            do {
                _ = try StepsQueryParams(json: params("{\"today\":true,\"sources\":[\(name)]}"))
                Issue.record("\(name) accepted")
            } catch {
                let message = (error as? RPCError)?.message ?? "\(error)"
                #expect(message.hasSuffix(said), "\(message)")
            }
        }
    }

    /// Issue 12, defect 7: the offset form the zone error suggests ("+02:00") was refused.
    @Test func offsetTimeZonesAreAccepted() throws {
        #expect(try StepsQueryParams(json: params("{\"today\":true,\"time_zone\":\"+02:00\"}")).timeZone == "+02:00")
    }

    /// Issue 12, defect 7: with an anchor the buckets are counted from it, so a range of exactly
    /// 10,000 minutes misaligned by 30 s (10,001 buckets) is refused instead of answered.
    @Test func bucketCapCountsFromTheAnchor() throws {
        expectInvalid(-32004, "10001 buckets") { () throws(RPCError) in
            _ = try StepsCollectionParams(json: try? params("{\"start\":1700000000,\"end\":1700600000,\"anchor\":1699999970,\"interval\":{\"minutes\":1}}"))
        }
        _ = try StepsCollectionParams(json: params("{\"start\":1700000000,\"end\":1700600000,\"anchor\":1699999940,\"interval\":{\"minutes\":1}}"))
    }

    @Test func severalSamplesAreOneCall() throws {
        let p = try SamplesAddParams(json: params(
            "{\"samples\":[{\"source\":\"app:phone\",\"start\":10,\"end\":20,\"steps\":5,\"sync_identifier\":\"w-1\",\"sync_version\":2},{\"source\":\"app:phone\",\"start\":30,\"end\":40,\"steps\":6}]}"))
        #expect(p.samples.count == 2)
        #expect(p.samples[0].syncIdentifier == "w-1" && p.samples[0].syncVersion == 2)
        #expect(try SamplesAddParams(json: p.json) == p)
        expectInvalid(-32004, "samples[1]") { () throws(RPCError) in
            _ = try SamplesAddParams(json: try? params("{\"samples\":[{\"source\":\"a\",\"start\":1,\"end\":2,\"steps\":1},{\"source\":\"a\",\"start\":5,\"end\":2,\"steps\":1}]}"))
        }
    }

    @Test func ledgerAndRecording() throws {
        #expect(try LedgerExportParams(json: nil) == LedgerExportParams(anchor: 0, limit: 1000))
        #expect(try LedgerExportParams(json: params("{\"anchor\":9007199254740993,\"limit\":5}")).anchor == 9_007_199_254_740_993)
        expectInvalid(-32602, "between 1 and 10000") { () throws(RPCError) in _ = try LedgerExportParams(json: try? params("{\"limit\":0}")) }
        expectInvalid(-32602, "needs \"anchor\"") { () throws(RPCError) in _ = try LedgerAckParams(json: try? params("{}")) }
        expectInvalid(-32602, "integer") { () throws(RPCError) in _ = try LedgerAckParams(json: try? params("{\"anchor\":\"5\"}")) }
        #expect(try RecordingStartParams(json: params("{\"minutes\":5,\"label\":\"stairs-1\"}")) == RecordingStartParams(minutes: 5, label: "stairs-1"))
        expectInvalid(-32602, "between 1 and 240") { () throws(RPCError) in _ = try RecordingStartParams(json: try? params("{\"minutes\":1000}")) }
        expectInvalid(-32602, "may only contain") { () throws(RPCError) in _ = try RecordingStartParams(json: try? params("{\"label\":\"../x\"}")) }
    }
}

@Suite struct DefaultPathTests {
    @Test func socketPath() {
        #expect(DefaultPaths.socketPath(environment: ["STEPD_SOCKET": "/x.sock", "RUNTIME_DIRECTORY": "/run/stepd"], uid: 1000) == "/x.sock")
        #expect(DefaultPaths.socketPath(environment: ["RUNTIME_DIRECTORY": "/run/stepd"], uid: 999) == "/run/stepd/stepd.sock")
        #expect(DefaultPaths.socketPath(environment: [:], uid: 0) == "/run/stepd/stepd.sock")
        #expect(DefaultPaths.socketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], uid: 1000) == "/run/user/1000/stepd/stepd.sock")
        #expect(DefaultPaths.socketPath(environment: [:], uid: 1000) == "/tmp/stepd-1000/stepd.sock")
        #expect(DefaultPaths.clientSocketCandidates(environment: [:], uid: 1000) == ["/tmp/stepd-1000/stepd.sock", "/run/stepd/stepd.sock"])
        #expect(DefaultPaths.clientSocketCandidates(environment: [:], uid: 0) == ["/run/stepd/stepd.sock"])
    }

    @Test func stateDirectory() {
        #expect(DefaultPaths.stateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/stepd"], uid: 999) == "/var/lib/stepd")
        #expect(DefaultPaths.stateDirectory(environment: [:], uid: 0) == "/var/lib/stepd")
        #expect(DefaultPaths.stateDirectory(environment: ["HOME": "/home/a"], uid: 1000) == "/home/a/.local/state/stepd")
        #expect(DefaultPaths.stateDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/home/a"], uid: 1000) == "/s/stepd")
        #expect(DefaultPaths.stateDirectory(environment: [:], uid: 1000) == "/tmp/stepd-1000/state")
    }
}
