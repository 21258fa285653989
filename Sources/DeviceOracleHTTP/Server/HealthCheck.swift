import CSyscalls
import Glibc

/// A minimal blocking HTTP/1.1 GET on loopback, for `device-oracle healthcheck`
/// (slim container images have no curl).
package enum HealthCheck {
    /// The status code of `GET path` on 127.0.0.1:port, or nil when there was no answer.
    package static func status(port: Int, path: String = "/healthz", timeoutSeconds: Double = 3) -> Int? {
        let fd = csyscalls_connect_loopback(Int32(port), Int32(timeoutSeconds * 1000))
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        let sent = request.withUnsafeBytes { csyscalls_send(fd, $0.baseAddress, $0.count) }
        guard sent == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while response.count < 12 {
            let count = buffer.withUnsafeMutableBytes { csyscalls_recv(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            response += buffer[0..<count]
        }
        // "HTTP/1.1 200 "
        guard response.count >= 12, response.starts(with: Array("HTTP/1.".utf8)) else { return nil }
        return Int(String(decoding: response[9..<12], as: UTF8.self))
    }
}
