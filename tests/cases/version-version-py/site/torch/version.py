__version__ = '2.0.0+cu124'
debug = False
cuda = '12.4'
git_version = '0123456789abcdef0123456789abcdef01234567'
