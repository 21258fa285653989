// swift-tools-version:6.0
import PackageDescription

// Layering (see DEVELOPERS.md): rules know nothing of JSON, the wire layer knows
// nothing of sockets, the HTTP server knows nothing of rulesets.
let package = Package(
    name: "DeviceOracle",
    products: [
        // Imported by apps' XCTest targets: standard library only.
        .library(name: "DeviceOracleRules", targets: ["DeviceOracleRules"]),
        // The whole oracle in process (check a log, translate a notification), and
        // assertions for XCTest and Swift Testing on top of it.
        .library(name: "DeviceOracle", targets: ["DeviceOracle"]),
        .library(name: "DeviceOracleTesting", targets: ["DeviceOracleTesting"]),
        // Linked into an app: writes the messages `?from=oslog` reads. Foundation only.
        .library(name: "DeviceOracleRecorder", targets: ["DeviceOracleRecorder"]),
        .executable(name: "device-oracle", targets: ["device-oracle"]),
    ],
    targets: [
        .target(name: "DeviceOracleRules"),
        .target(name: "DeviceOracleJSON"),
        .target(name: "DeviceOracleWire", dependencies: ["DeviceOracleRules", "DeviceOracleJSON"]),
        .target(name: "DeviceOracle", dependencies: ["DeviceOracleRules", "DeviceOracleWire", "DeviceOracleJSON"]),
        .target(name: "DeviceOracleTesting", dependencies: ["DeviceOracle"]),
        .target(name: "DeviceOracleRecorder"),
        .target(name: "CSyscalls"),
        .target(name: "DeviceOracleHTTP", dependencies: ["DeviceOracleJSON", "CSyscalls"]),
        .executableTarget(
            name: "device-oracle",
            dependencies: ["DeviceOracleWire", "DeviceOracleHTTP", "DeviceOracleJSON"],
            resources: [.embedInCode("openapi.yaml"), .embedInCode("viewer.html")]
        ),
        // Seeded property checking, shared by the rules' and the wire's tests.
        .target(name: "PropertyChecking", dependencies: ["DeviceOracleRules"], path: "Tests/PropertyChecking"),
        // Reading the server's chunked answers, shared by the HTTP and end-to-end tests.
        .target(name: "HTTPTestSupport", path: "Tests/HTTPTestSupport"),
        .testTarget(name: "DeviceOracleRulesTests", dependencies: ["DeviceOracleRules", "PropertyChecking"]),
        .testTarget(name: "DeviceOracleJSONTests", dependencies: ["DeviceOracleJSON"]),
        .testTarget(name: "DeviceOracleWireTests", dependencies: ["DeviceOracleWire", "PropertyChecking"]),
        .testTarget(name: "DeviceOracleHTTPTests", dependencies: ["DeviceOracleHTTP", "DeviceOracleJSON", "HTTPTestSupport"]),
        .testTarget(name: "DeviceOracleTests", dependencies: ["DeviceOracle", "DeviceOracleTesting", "HTTPTestSupport"]),
        // DeviceOracle only to check what the recorder wrote, as the service would.
        .testTarget(name: "DeviceOracleRecorderTests", dependencies: ["DeviceOracleRecorder", "DeviceOracle"]),
        .testTarget(name: "EndToEndTests", dependencies: ["device-oracle", "HTTPTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
