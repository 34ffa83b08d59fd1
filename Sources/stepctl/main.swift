import ArgumentParser
print("stepctl placeholder")
