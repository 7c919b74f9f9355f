import java.util.*;

// int results of library calls (Collections.max, Integer.valueOf) divided and used as string indices
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        String s = sc.next();
        int n = s.length();
        List<Integer> lens = new ArrayList<>();
        for (int i = 1; i <= n; i++) lens.add(i);
        System.out.println(s.charAt(Collections.max(lens) / 2));
        System.out.println(s.charAt(Collections.min(lens) / 2));
        System.out.println(s.charAt(Integer.valueOf(n) / 3));
        System.out.println(s.substring(Integer.valueOf(n - 1) / 2));
    }
}
