import CZlib
import Glibc
import POSIXLayer

/// Opens a file with open(2) and hands its descriptor to zlib, for every gzip stream the tools
/// read or write: gzopen would open a missing file lazily and lose errno.
public enum GzipFile {
    public enum OpenError: Error, Sendable, Equatable {
        /// open(2) failed.
        case open(Errno)
        /// zlib could not attach to the open file.
        case attach
    }

    /// `flags` for open(2) (O_CLOEXEC is added), `gzipMode` for gzdopen ("rb", "wb6"...). The
    /// stream owns the descriptor afterwards: gzclose closes it.
    public static func open(_ path: String, flags: Int32, permissions: mode_t = 0o644, gzipMode: String)
        -> Result<gzFile, OpenError>
    {
        let descriptor: FileDescriptor
        do throws(Errno) {
            descriptor = try FileDescriptor.open(path, flags, permissions: permissions)
        } catch {
            return .failure(.open(error))
        }
        guard let file = gzdopen(descriptor.rawValue, gzipMode) else { return .failure(.attach) }
        descriptor.release()
        return .success(file)
    }
}
