import Glibc
import POSIXLayer
import Testing

/// A fresh directory under /tmp, removed with its files afterwards.
private final class TemporaryDirectory {
    let path: String

    init() throws {
        var template = Array("/tmp/posix-tests-XXXXXX".utf8CString)
        let made = try #require(mkdtemp(&template))
        path = String(cString: made)
    }

    deinit {
        for name in (try? FileSystem.listDirectory(path)) ?? [] { unlink(path + "/" + name) }
        rmdir(path)
    }
}

@Suite struct ErrnoRetryTests {
    @Test func interruptedCallsAreRetriedUntilTheyAnswer() throws {
        var calls = 0
        let value = try valueOrErrno { () -> Int32 in
            calls += 1
            if calls < 3 {
                errno = EINTR
                return -1
            }
            return 42
        }
        #expect(value == 42)
        #expect(calls == 3)
    }

    @Test func interruptionIsReportedWhenRetryIsOff() {
        #expect(throws: Errno.interrupted) {
            try valueOrErrno(retryOnInterrupt: false) { () -> Int32 in
                errno = EINTR
                return -1
            }
        }
    }

    @Test func otherErrorsAreThrownAtOnce() {
        var calls = 0
        #expect(throws: Errno(ENOSPC)) {
            try nothingOrErrno { () -> Int32 in
                calls += 1
                errno = ENOSPC
                return -1
            }
        }
        #expect(calls == 1)
        #expect(Errno(ENOSPC).name == "ENOSPC")
        #expect(Errno(ENOSPC).description == String(cString: strerror(ENOSPC)))
    }
}

/// Both ends of a pipe, owned. Tests watch the read end for end-of-file to see whether the write
/// end was closed: descriptor numbers alone cannot tell, since tests running in parallel reuse them.
private func makePipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    return (FileDescriptor(adopting: ends[0]), FileDescriptor(adopting: ends[1]))
}

/// True when every write end of the pipe is closed (a read sees end-of-file at once).
private func writeEndClosed(_ read: FileDescriptor) throws -> Bool {
    try read.setNonBlocking()
    var byte: UInt8 = 0
    do throws(Errno) {
        return try withUnsafeMutableBytes(of: &byte) { raw in Result { () throws(Errno) in try read.read(into: raw) } }.get() == 0
    } catch {
        return false  // EAGAIN: still open, nothing written
    }
}

@Suite struct FileDescriptorTests {
    @Test func closeClosesOnceAndForgetsTheNumber() throws {
        let (read, write) = try makePipe()
        #expect(try !writeEndClosed(read))
        write.close()
        #expect(try writeEndClosed(read))
        // Forgotten, so neither a second close nor deinit can close a number reused since.
        #expect(write.rawValue == -1)
        #expect(!write.isOpen)
        write.close()
    }

    @Test func goingAwayCloses() throws {
        let read: FileDescriptor
        do {
            let ends = try makePipe()
            read = ends.read
            #expect(try !writeEndClosed(read))
            #expect(ends.write.isOpen)
        }
        #expect(try writeEndClosed(read))
    }

    @Test func borrowedDescriptorsStayOpen() throws {
        let (read, write) = try makePipe()
        var borrowed: FileDescriptor? = FileDescriptor(borrowing: write.rawValue)
        borrowed?.close()
        borrowed = nil
        #expect(try !writeEndClosed(read))
        try write.writeAll([7])
    }

    @Test func releaseHandsTheNumberOver() throws {
        var (read, write): (FileDescriptor, FileDescriptor?) = try makePipe()
        let number = try #require(write?.release())
        write = nil
        #expect(try !writeEndClosed(read))
        close(number)
        #expect(try writeEndClosed(read))
    }

    @Test func openIsCloseOnExecAndFailuresCarryErrno() throws {
        let file = try FileDescriptor.open("/dev/null", O_RDONLY)
        #expect(fcntl(file.rawValue, F_GETFD) & FD_CLOEXEC != 0)
        #expect(throws: Errno.noSuchFile) { try FileDescriptor.open("/nonexistent/stepd-test", O_RDONLY) }
    }
}

@Suite struct FileSystemTests {
    @Test func atomicReplaceLeavesTheNewContentAndNoTemporary() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/metrics.prom"
        try FileSystem.writeAtomically(Array("old\n".utf8), to: path, syncDirectory: true)
        try FileSystem.writeAtomically(Array("new\n".utf8), to: path, mode: 0o600, syncDirectory: false)
        #expect(try FileSystem.readFile(path) == Array("new\n".utf8))
        #expect(try FileSystem.listDirectory(directory.path) == ["metrics.prom"])
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test func atomicReplaceIntoAMissingDirectoryFailsCleanly() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: FileSystemError.self) {
            try FileSystem.writeAtomically([1], to: directory.path + "/missing/file", syncDirectory: true)
        }
        #expect(error?.errno == ENOENT)
        #expect(error?.operation == "open")
        #expect(try FileSystem.listDirectory(directory.path) == [])
    }

    @Test func durableAppendCutsATornTailFirst() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/day"
        try FileSystem.writeFileDurably(path, Array("recordTORN".utf8))
        try FileSystem.appendDurably(path, Array("next".utf8), expectedSize: 6)
        #expect(try FileSystem.readFile(path) == Array("recordnext".utf8))
        let error = #expect(throws: FileSystemError.self) {
            try FileSystem.appendDurably(path, Array("x".utf8), expectedSize: 64)
        }
        #expect(error?.errno == EIO)
        #expect(try FileSystem.fileSize(path) == 10)
    }

    @Test func makeDirectoriesCreatesParentsAndRefusesAFile() throws {
        let directory = try TemporaryDirectory()
        try FileSystem.makeDirectories(directory.path + "/a/b")
        try FileSystem.makeDirectories(directory.path + "/a/b")
        #expect(try FileSystem.listDirectory(directory.path + "/a") == ["b"])
        try FileSystem.writeFileDurably(directory.path + "/file", [])
        let error = #expect(throws: FileSystemError.self) { try FileSystem.makeDirectories(directory.path + "/file") }
        #expect(error?.errno == ENOTDIR)
        rmdir(directory.path + "/a/b")
        rmdir(directory.path + "/a")
        #expect(try FileSystem.listFiles(directory.path).map(\.name) == ["file"])
        #expect(try FileSystem.listDirectory(directory.path + "/none") == nil)
    }
}

@Suite struct UnixSocketTests {
    @Test func addressesHoldPathsUpTo107BytesAndAbstractNames() throws {
        let longest = "/" + String(repeating: "x", count: 106)
        let path = try #require(UnixSocketAddress(path: longest))
        #expect(Int(path.length) == 2 + 107 + 1)
        #expect(UnixSocketAddress(path: longest + "x") == nil)
        #expect(UnixSocketAddress(path: "") == nil)
        #expect(UnixSocketAddress(path: "a\u{0}b") == nil)
        let abstract = try #require(UnixSocketAddress(systemdNotation: "@stepd/notify"))
        #expect(Int(abstract.length) == 2 + "@stepd/notify".utf8.count)
        #expect(withUnsafeBytes(of: abstract.storage.sun_path) { $0[0] } == 0)
        let plain = try #require(UnixSocketAddress(systemdNotation: "/run/notify"))
        #expect(Int(plain.length) == 2 + "/run/notify".utf8.count + 1)
    }

    @Test func streamRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let address = try #require(UnixSocketAddress(path: directory.path + "/s"))
        let listener = try FileDescriptor.unixSocket(Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
        try listener.bind(to: address)
        try listener.listen(backlog: 4)
        #expect(try listener.accept() == nil)

        let client = try FileDescriptor.unixSocket(Int32(SOCK_STREAM.rawValue))
        try client.connect(to: address)
        let served = try #require(try listener.accept())
        #expect(fcntl(served.rawValue, F_GETFL) & O_NONBLOCK != 0)

        let sent = try Array("ping\n".utf8).withUnsafeBytes { raw in Result { () throws(Errno) in try client.send(raw) } }.get()
        #expect(sent == 5)
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try served.receive(into: raw) } }.get()
        #expect(Array(buffer[0..<count]) == Array("ping\n".utf8))
        #expect(throws: Errno.wouldBlock) {
            try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try served.receive(into: raw) } }.get()
        }
        client.close()
        let atEnd = try buffer.withUnsafeMutableBytes { raw in Result { () throws(Errno) in try served.receive(into: raw) } }.get()
        #expect(atEnd == 0)
        unlink(directory.path + "/s")
    }

    @Test func connectingToNothingSaysWhy() throws {
        let client = try FileDescriptor.unixSocket(Int32(SOCK_STREAM.rawValue))
        let address = try #require(UnixSocketAddress(path: "/nonexistent/stepd.sock"))
        #expect(throws: Errno.noSuchFile) { try client.connect(to: address) }
    }
}
