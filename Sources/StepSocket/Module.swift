// Placeholder until the module lands.
public enum StepSocketModule {}
