import StepdAgent
print("stepd placeholder")
