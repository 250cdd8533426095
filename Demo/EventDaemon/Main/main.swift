print("strata-eventd")
