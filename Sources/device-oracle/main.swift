print("device-oracle")
