import Foundation
import Glibc
import StepSocket
import Testing

@Suite struct ClientErrorTests {
    /// A socket file nobody listens on: bind, then close without listening.
    func staleSocket(in directory: String) throws -> String {
        let path = directory + "/stale.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(fd)
        guard bound == 0 else { throw POSIXError(.EIO) }
        return path
    }

    @Test func anExistingSocketsErrorBeatsAMissingOne() throws {
        let directory = NSTemporaryDirectory() + "stepd-client-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let stale = try staleSocket(in: directory)
        let missing = directory + "/missing.sock"
        do {
            _ = try UnixSocketClient.connectFirst([missing, stale], timeout: 1)
            Issue.record("connected to nothing")
        } catch {
            #expect(error == .staleSocket(path: stale), "\(error)")
        }
        // A path that is no socket at all (a mistyped --socket) is not called a stale socket.
        for notASocket in [directory + "/plain-file", directory] {
            if notASocket != directory { #expect(FileManager.default.createFile(atPath: notASocket, contents: Data("x".utf8))) }
            do {
                _ = try UnixSocketClient(path: notASocket, timeout: 1)
                Issue.record("connected to \(notASocket)")
            } catch {
                #expect(error == .notASocket(path: notASocket), "\(error)")
            }
        }
        do {
            _ = try UnixSocketClient.connectFirst([missing, directory + "/also-missing.sock"], timeout: 1)
            Issue.record("connected to nothing")
        } catch {
            #expect(error == .notRunning(path: missing), "\(error)")
        }
    }
}
