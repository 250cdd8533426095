print("strata-eventgen")
