print("stepbench placeholder")
