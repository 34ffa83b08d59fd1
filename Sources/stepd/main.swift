import Glibc
import StepdAgent

exit(AgentLauncher.main(arguments: Array(CommandLine.arguments.dropFirst()),
                        environment: AgentLauncher.processEnvironment()))
