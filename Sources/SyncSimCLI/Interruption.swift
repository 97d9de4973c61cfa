#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Ctrl-C (SIGINT) and SIGTERM (a cancelled CI job) during a long command: the first one sets a
/// flag that the fuzz driver polls like its deadline (between runs, inside runs, inside
/// shrinking), so the command stops within milliseconds and still writes a report, marked
/// interrupted, with everything finished so far. The handler then falls back to the default
/// action, so a second Ctrl-C ends the process at once.
///
/// The handler only stores the signal's number (async-signal-safe); nothing else happens in
/// signal context.
enum Interruption {
    /// Installs the handlers for the duration of `body` and restores the previous ones after.
    /// `body` gets the stop condition to poll.
    static func whileHandling<T>(_ body: (_ interrupted: @escaping @Sendable () -> Bool) throws -> T) rethrows -> T {
        receivedSignal = 0
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        let previousInt = signal(SIGINT, handleSignal)
        let previousTerm = signal(SIGTERM, handleSignal)
        // A parent that spawned us from a thread blocking signals (a dispatch worker, a test
        // runner) passes its mask on: unblock ours, or Ctrl-C would stay pending for ever.
        var set = sigset_t(), previousMask = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, &previousMask)
        defer {
            signal(SIGINT, previousInt)
            signal(SIGTERM, previousTerm)
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }
        #endif
        return try body({ receivedSignal != 0 })
    }

    /// The signal that arrived (0: none yet).
    static var signalNumber: Int32 { receivedSignal }

    /// The exit status a shell reports for a process ended by that signal (130 for SIGINT).
    static var exitStatus: Int32 { 128 + receivedSignal }

    /// `SIGINT`, `SIGTERM`.
    static var signalName: String {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        switch receivedSignal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(receivedSignal)"
        }
        #else
        return "signal \(receivedSignal)"
        #endif
    }
}

/// Written only by the handler, read by the polling workers: a word-sized store, no lock (a
/// lock is not async-signal-safe).
nonisolated(unsafe) private var receivedSignal: Int32 = 0

#if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
private func handleSignal(_ sig: Int32) {
    receivedSignal = sig
    // A second Ctrl-C is not polite any more: default action (terminate).
    signal(sig, SIG_DFL)
}
#endif
