import CivilTime
import Glibc
import POSIXLayer

extension TimeZoneLoader {
    /// `load(_:readFile:)` reading zone files through the ledger's file layer.
    public static func load(_ name: String?, fileSystem: any LedgerFileSystem = PosixFileSystem()) throws(LoadError) -> TimeZoneRule {
        try load(name) { path throws(ReadFailure) in
            do throws(FileSystemError) {
                return try fileSystem.readFile(path)
            } catch {
                throw error.errno == ENOENT ? .missing : .failed("\(error)")
            }
        }
    }

    /// The process's local zone: `$TZ` when set, else /etc/localtime.
    public static func local(environment: [String: String], fileSystem: any LedgerFileSystem = PosixFileSystem()) throws(LoadError) -> TimeZoneRule {
        try load(environmentZoneName(environment), fileSystem: fileSystem)
    }
}
