import StepJSON
import StepProtocol

/// What the agent implements to answer requests. The server validates params and permissions
/// before calling; handlers run on the agent's loop thread and must not block.
/// Subscriptions are kept by `RPCDispatcher`; the agent feeds them through its `publishSteps`,
/// `publishActivity` and `publishLedgerChange`.
public protocol StepdService: AnyObject {
    func status() throws(RPCError) -> StatusResult
    func stepsQuery(_ params: StepsQueryParams) throws(RPCError) -> StepsQueryResult
    func stepsStatistics(_ params: StepsStatisticsParams) throws(RPCError) -> StepsStatisticsResult
    func stepsCollection(_ params: StepsCollectionParams) throws(RPCError) -> StepsCollectionResult
    func activityCurrent() throws(RPCError) -> ActivityResult
    func activityQuery(_ params: ActivityQueryParams) throws(RPCError) -> ActivityQueryResult
    /// The running total the agent passes to `publishSteps`; a new subscription counts from here.
    func currentStepTotal() -> Int
    func samplesAdd(_ params: SamplesAddParams, caller: RPCCaller) throws(RPCError) -> SamplesAddResult
    func samplesDelete(_ params: SamplesDeleteParams, caller: RPCCaller) throws(RPCError) -> SamplesDeleteResult
    func samplesList(_ params: SamplesListParams) throws(RPCError) -> SamplesListResult
    func sourcesList() throws(RPCError) -> SourcesResult
    func sourcesPriority(_ params: SourcesPriorityParams, caller: RPCCaller) throws(RPCError) -> SourcesResult
    /// Merged steps and metres from `from` to now (ledger plus unsaved steps), for
    /// `steps.subscribe` with `from`.
    func stepsSince(_ from: Double) throws(RPCError) -> (steps: Int, distanceMeters: Double)
    func ledgerExport(_ params: LedgerExportParams) throws(RPCError) -> LedgerExportResult
    func ledgerAck(_ params: LedgerAckParams, caller: RPCCaller) throws(RPCError) -> LedgerAckResult
    func recordingStart(_ params: RecordingStartParams, caller: RPCCaller) throws(RPCError) -> RecordingStartResult
    func recordingStop(caller: RPCCaller) throws(RPCError) -> RecordingStopResult
}

extension StepdService {
    /// Decodes params and calls the handler, for every method that is not about subscriptions.
    func call(_ method: RPCMethod, params: JSONValue?, caller: RPCCaller) throws(RPCError) -> JSONValue {
        let service = self
        switch method {
        case .status:
            try NoParams.check(params, method: method)
            return try service.status().json
        case .stepsQuery: return try service.stepsQuery(StepsQueryParams(json: params)).json
        case .stepsStatistics: return try service.stepsStatistics(StepsStatisticsParams(json: params)).json
        case .stepsCollection: return try service.stepsCollection(StepsCollectionParams(json: params)).json
        case .activityCurrent:
            try NoParams.check(params, method: method)
            return try service.activityCurrent().json
        case .activityQuery: return try service.activityQuery(ActivityQueryParams(json: params)).json
        case .samplesAdd: return try service.samplesAdd(SamplesAddParams(json: params), caller: caller).json
        case .samplesDelete: return try service.samplesDelete(SamplesDeleteParams(json: params), caller: caller).json
        case .samplesList: return try service.samplesList(SamplesListParams(json: params)).json
        case .sourcesList:
            try NoParams.check(params, method: method)
            return try service.sourcesList().json
        case .sourcesPriority: return try service.sourcesPriority(SourcesPriorityParams(json: params), caller: caller).json
        case .ledgerExport: return try service.ledgerExport(LedgerExportParams(json: params)).json
        case .ledgerAck: return try service.ledgerAck(LedgerAckParams(json: params), caller: caller).json
        case .recordingStart: return try service.recordingStart(RecordingStartParams(json: params), caller: caller).json
        case .recordingStop:
            try NoParams.check(params, method: method)
            return try service.recordingStop(caller: caller).json
        case .stepsSubscribe, .activitySubscribe, .ledgerSubscribe, .unsubscribe:
            throw .internalError("\(method.rawValue) is handled by the connection, not the service")
        }
    }
}
