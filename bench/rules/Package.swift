// swift-tools-version:6.0
// In-process throughput of the pure rules (issue 6: ≥ 50 million playback events/s
// per core). Run: bench/rules/run.sh
import PackageDescription

let package = Package(
    name: "rules-bench",
    dependencies: [.package(name: "DeviceOracle", path: "../..")],
    targets: [
        .executableTarget(
            name: "rules-bench",
            dependencies: [.product(name: "DeviceOracleRules", package: "DeviceOracle")]
        ),
    ]
)
