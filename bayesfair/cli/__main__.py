from bayesfair.cli.commands import main

main()
