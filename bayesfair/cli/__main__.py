from bayesfair.cli.main import main

main()
