import Glibc
import StepProtocol
import StepdAgent

exit(AgentLauncher.main(arguments: Array(CommandLine.arguments.dropFirst()),
                        environment: ProcessEnvironment.current()))
